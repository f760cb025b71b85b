/**
 * The run's copy of its scope's receipt. Only the scope lease holder writes it, and every write is
 * a conditional put on the etag it read: an intervening writer is reported, never overwritten.
 */
import type { Intent, LedgerEntry, Receipt, RunRecord } from "../../shared/schemas/receipt";
import { RUNS_KEPT } from "../../shared/schemas/receipt";
import type { ReceiptStore, ScopeAddress } from "../receipts/receipt-store";

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

  get receipt(): Readonly<Receipt> {
    return this.#receipt;
  }

  get exists(): boolean {
    return this.#etag !== null;
  }

  ledgerEntry(line: string, key: string): LedgerEntry | undefined {
    return this.#receipt.ledger.find((e) => e.line === line && e.key === key);
  }

  /** Announces a write; replaces the run's earlier intent for the same item. */
  addIntent(intent: Intent): void {
    this.dropIntent(intent);
    this.#receipt = { ...this.#receipt, intents: [...this.#receipt.intents, intent] };
  }

  dropIntent(intent: Intent): void {
    this.#receipt = {
      ...this.#receipt,
      intents: this.#receipt.intents.filter(
        (i) => !(i.runId === intent.runId && i.line === intent.line && i.key === intent.key),
      ),
    };
  }

  addLedger(entry: LedgerEntry): void {
    const ledger = this.#receipt.ledger.filter((e) => !(e.line === entry.line && e.key === entry.key));
    this.#receipt = { ...this.#receipt, ledger: [...ledger, entry] };
  }

  dropLedger(line: string, key: string): void {
    this.#receipt = {
      ...this.#receipt,
      ledger: this.#receipt.ledger.filter((e) => !(e.line === line && e.key === key)),
    };
  }

  recordRun(run: RunRecord): void {
    this.#receipt = { ...this.#receipt, runs: [...this.#receipt.runs, run].slice(-RUNS_KEPT) };
  }

  async save(): Promise<void> {
    this.#etag = await this.#store.write(
      { ...this.#receipt, revision: this.#receipt.revision + 1 },
      this.#etag,
    );
    this.#receipt = { ...this.#receipt, revision: this.#receipt.revision + 1 };
  }

  /** Removes the receipt once the scope owns nothing (destroy). */
  async delete(): Promise<void> {
    if (this.#etag === null) return;
    await this.#store.remove(this.#address, this.#etag);
    this.#etag = null;
  }
}
