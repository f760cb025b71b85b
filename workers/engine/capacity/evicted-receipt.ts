/**
 * What an eviction writes of each evicted scope (docs/design.md, "Evicting stale scopes"), in the
 * order that keeps its ledger and the lock's ownership saying the same: its receipt first (the
 * removed entries out of its ledger, a remove intent for each, a note per list), only then its
 * leave, then the receipt again without those intents, and the audit record. A receipt write that
 * fails keeps the leave unrecorded: the scope still owns what its ledger names (gone from the
 * provider, which its next run or destroy settles). A leave that fails after the first write is
 * covered by the intents: they stay, and the scope's next run resolves them under the parent lease
 * as any other unfinished removal, whatever the lock then says. The write removed the entries
 * whatever failed after it, so the audit record is written in every case, and the run warns.
 */
import type { EvictionNote } from "../../../shared/schemas/eviction";
import type { Intent, LedgerEntry } from "../../../shared/schemas/receipt";
import type { WriterParts } from "../contracts/writer-parts";
import { type Item, sameItem } from "../plan/item";
import type { Candidate } from "./eviction";
import { evictionNotes } from "./eviction-notes";

/** A scope whose receipt records the eviction: its etag now, the intents and notes written. */
interface Noted {
  etag: string;
  intents: Intent[];
  notes: EvictionNote[];
}

/** How the steps before the receipt's settling went for one evicted scope. */
export interface AfterLeave {
  /** Its lease is still held (checked by a round trip before the leaves). */
  held: boolean;
  /** The ownership call carrying the leaves succeeded. */
  left: boolean;
}

export class EvictedReceipts {
  readonly #w: WriterParts;
  readonly #noted = new Map<Candidate, Noted>();
  /** Scopes whose first receipt write was tried (and warned of when it failed). */
  readonly #tried = new Set<Candidate>();

  constructor(w: WriterParts) {
    this.#w = w;
  }

  /**
   * Before the leave, under the scope's lease: its receipt without the removed entries, with a
   * remove intent for each (the leave to come is an ownership change like any other: "Ownership of
   * shared entries") and the eviction's notes. Whether the scope's leave may now be recorded.
   */
  async beforeLeave(c: Candidate, items: readonly Item[]): Promise<boolean> {
    const { deps, run } = this.#w;
    this.#tried.add(c);
    const now = deps.clock.now();
    const gone = this.#entries(c, items);
    const intents = gone.map((entry) => removeIntent(entry, run.id, now));
    const notes = evictionNotes(run.id, c.share, items, now);
    const { receipt, etag } = c.stored;
    try {
      const written = await deps.store.write(
        {
          ...receipt,
          ledger: receipt.ledger.filter((e) => !gone.some((g) => sameItem(g, e))),
          intents: [...receipt.intents, ...intents],
          evictions: [...(receipt.evictions ?? []), ...notes],
        },
        etag,
      );
      this.#noted.set(c, { etag: written, intents, notes });
      return true;
    } catch (err) {
      run.warn(
        `eviction: the receipt of ${c.share.scope} was not updated: ${String(err)}; its entries ${keys(items)} were removed, and it keeps owning them`,
      );
      return false;
    }
  }

  /**
   * After the leave, whether it was recorded or not (or with the scope's lease lost before it):
   * the intents the first write added go only once the leave was recorded under the held lease
   * (else the scope's next run resolves them), the audit trail records the eviction, and the etag
   * the scope's release hands on is answered: that of this run's last receipt write, only when it
   * succeeded and the lease is held with the leave recorded; else null.
   */
  async afterLeave(c: Candidate, items: readonly Item[], { held, left }: AfterLeave): Promise<string | null> {
    const { deps, run } = this.#w;
    const noted = this.#noted.get(c);
    this.#noted.delete(c);
    let etag: string | null = null;
    const removed = `eviction: ${c.share.scope}'s entries ${keys(items)} were removed`;
    if (!held) run.warn(`${removed}, but its lease was lost before its leave: its receipt was not updated`);
    else if (!left && noted)
      run.warn(
        `${removed} and its receipt says so, but its leave was not recorded: the remove intents in its receipt stay for its next run to resolve`,
      );
    else if (!left && !this.#tried.has(c))
      run.warn(`${removed}, but the run stopped before its receipt was updated: it keeps owning them`);
    else if (noted) etag = await this.#settle(c, noted);
    this.#tried.delete(c);
    const notes = noted?.notes ?? evictionNotes(run.id, c.share, items, deps.clock.now());
    for (const note of notes) {
      try {
        await deps.auditEviction?.({
          ...note,
          actor: `run ${run.id}`,
          repository: run.repository,
          environment: c.share.environment,
          scope: c.share.scope,
          receiptUpdated: noted !== undefined,
        });
      } catch (err) {
        // The eviction happened and the scope's receipt says so: the run's answer stands.
        run.warn(`eviction: the audit record of ${c.share.scope} was not written: ${String(err)}`);
      }
    }
    return etag;
  }

  /**
   * The first write's intents dropped (its etag, so nothing newer is written over): the new etag,
   * or null when the write failed — it may have landed with its answer lost, so the first write's
   * etag may no longer be the receipt's, and a release naming it would vouch for a stale version.
   */
  async #settle(c: Candidate, noted: Noted): Promise<string | null> {
    const { deps } = this.#w;
    const { receipt } = c.stored;
    try {
      return await deps.store.write(
        {
          ...receipt,
          ledger: receipt.ledger.filter((e) => !noted.intents.some((i) => sameItem(i, e))),
          evictions: [...(receipt.evictions ?? []), ...noted.notes],
        },
        noted.etag,
      );
    } catch (err) {
      this.#w.run.warn(
        `eviction: the intents in ${c.share.scope}'s receipt were not settled (its next run resolves them): ${String(err)}`,
      );
      return null;
    }
  }

  /** `c`'s ledger entries of the items removed. */
  #entries(c: Candidate, items: readonly Item[]): LedgerEntry[] {
    return c.entries.filter(({ item }) => items.includes(item)).map(({ entry }) => entry);
  }
}

/** A remove intent of the evicting run for `entry`, claiming before it is resolved, as every intent now. */
function removeIntent(entry: LedgerEntry, runId: string, at: number): Intent {
  const { holding: _holding, createdAt: _createdAt, ...record } = entry;
  return { ...record, action: "remove", runId, at, claims: true };
}

const keys = (items: readonly Item[]) => items.map((i) => i.key).join(", ");
