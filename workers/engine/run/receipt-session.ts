/**
 * The run's copy of its scope's receipt. Only the scope lease holder writes it, and every write is
 * a conditional put on the etag it read: an intervening writer is reported, never overwritten.
 */
import type { Intent, LedgerEntry, Receipt, RunRecord } from "../../../shared/schemas/receipt";
import { RUNS_KEPT } from "../../../shared/schemas/receipt";
import type { ReceiptStore, ScopeAddress, StoredReceipt } from "../../receipts/receipt-store";
import { type ItemRef, sameItem } from "../plan/item";

export class ReceiptSession {
  readonly #store: ReceiptStore;
  readonly #address: ScopeAddress;
  #receipt: Receipt;
  #etag: string | null;

  private constructor(store: ReceiptStore, address: ScopeAddress, receipt: Receipt, etag: string | null) {
    this.#store = store;
    this.#address = address;
    // Every save names the scope's repository, also for a receipt written before they did.
    this.#receipt = { ...receipt, repository: { id: address.repository.id, name: address.repository.name } };
    this.#etag = etag;
  }

  static async open(store: ReceiptStore, address: ScopeAddress): Promise<ReceiptSession> {
    const { receipt, etag } = await store.read(address);
    return new ReceiptSession(store, address, receipt, etag);
  }

  /**
   * A session over a version read earlier (before the lease), for a run the scope lock vouches
   * for: its grant named this very etag as the one the last holder saved (docs/design.md, "Run
   * algorithm"). The saves stay conditional on it, so a stale version is never written over.
   */
  static of(store: ReceiptStore, address: ScopeAddress, stored: StoredReceipt): ReceiptSession {
    return new ReceiptSession(store, address, stored.receipt, stored.etag);
  }

  /** The version this session last read or wrote; null when no receipt exists. */
  get etag(): string | null {
    return this.#etag;
  }

  get receipt(): Readonly<Receipt> {
    return this.#receipt;
  }

  get exists(): boolean {
    return this.#etag !== null;
  }

  /**
   * The scope's entry for an item, whichever line recorded it. Receipts written before items were
   * keyed this way may hold two entries of one item (two lines); the first is the one a run uses.
   */
  ledgerEntry(ref: ItemRef): LedgerEntry | undefined {
    return this.#receipt.ledger.find((e) => sameItem(e, ref));
  }

  /**
   * Announces a write; replaces the run's earlier intent of the same action for the same item. A
   * remove intent never replaces the run's create intent of the item: until the removal is known
   * to be done (`resolveIntents`), the create intent is what says the item may be there.
   */
  addIntent(intent: Intent): void {
    this.dropIntent(intent);
    this.#receipt = { ...this.#receipt, intents: [...this.#receipt.intents, intent] };
  }

  /** Takes back one announced write that never touched anything (same run, item and action). */
  dropIntent(intent: Intent): void {
    this.#receipt = {
      ...this.#receipt,
      intents: this.#receipt.intents.filter(
        (i) => !(i.runId === intent.runId && i.action === intent.action && sameItem(i, intent)),
      ),
    };
  }

  /**
   * `runId`'s create of the item was refused and its claim could not be withdrawn (Intent.refused):
   * recovery only leaves it. The run's next save makes the mark durable.
   */
  markRefused(runId: string, ref: ItemRef): void {
    this.#receipt = {
      ...this.#receipt,
      intents: this.#receipt.intents.map((i) =>
        i.runId === runId && i.action === "create" && sameItem(i, ref) ? { ...i, refused: true as const } : i,
      ),
    };
  }

  /** The item's state is known after `runId`'s write: none of that run's intents for it is needed. */
  resolveIntents(runId: string, ref: ItemRef): void {
    this.#receipt = {
      ...this.#receipt,
      intents: this.#receipt.intents.filter((i) => !(i.runId === runId && sameItem(i, ref))),
    };
  }

  /** Records the scope's entry for an item, in place of any it had (under any line). */
  addLedger(entry: LedgerEntry): void {
    const ledger = this.#receipt.ledger.filter((e) => !sameItem(e, entry));
    this.#receipt = { ...this.#receipt, ledger: [...ledger, entry] };
  }

  dropLedger(ref: ItemRef): void {
    this.#receipt = {
      ...this.#receipt,
      ledger: this.#receipt.ledger.filter((e) => !sameItem(e, ref)),
    };
  }

  /**
   * The plan now manages an item the scope holds through another line, connection or params: the
   * entry keeps how and since when the scope holds it and takes the new labels (one entry, also
   * where an older receipt held two of the item).
   */
  relabel(ref: ItemRef, labels: Pick<LedgerEntry, "line" | "connection" | "params">): void {
    const entry = this.ledgerEntry(ref);
    if (!entry) return;
    const same =
      entry.line === labels.line &&
      entry.connection === labels.connection &&
      JSON.stringify(entry.params) === JSON.stringify(labels.params) &&
      this.#receipt.ledger.filter((e) => sameItem(e, ref)).length === 1;
    if (same) return;
    const { provider: _legacy, ...rest } = entry;
    this.addLedger({ ...rest, ...labels });
  }

  recordRun(run: RunRecord): void {
    this.#receipt = { ...this.#receipt, runs: [...this.#receipt.runs, run].slice(-RUNS_KEPT) };
  }

  async save(): Promise<void> {
    const next = { ...this.#receipt, revision: this.#receipt.revision + 1 };
    this.#etag = await this.#store.write(next, this.#etag);
    this.#receipt = next;
  }

  /** Removes the receipt once the scope owns nothing (destroy). */
  async delete(): Promise<void> {
    if (this.#etag === null) return;
    await this.#store.remove(this.#address, this.#etag);
    this.#etag = null;
  }
}
