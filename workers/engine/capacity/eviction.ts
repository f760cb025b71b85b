/**
 * Evicting stale scopes (docs/design.md, "Evicting stale scopes"): with the environment's
 * `evictStale`, a write past a list's cap first removes the entries of the caller's repository's
 * stalest stale scopes on that object. Each scope is taken by its own scope lease without waiting
 * (a busy one is skipped), so its receipt is written the way its own runs write it: conditionally,
 * by the lease's holder. The removal itself is part of the one fenced group write
 * (critical-section.ts); this file chooses the scopes, checks their leases before the write and
 * before their leaves, and records what was evicted.
 */

import { isSponsonError, SponsonError } from "../../../shared/errors";
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import type { LedgerEntry } from "../../../shared/schemas/receipt";
import { ScopeLease } from "../../locks/scope-lock";
import type { StoredReceipt } from "../../receipts/receipt-store";
import type { GroupContext, GroupFence } from "../contracts/group-context";
import type { WriterParts } from "../contracts/writer-parts";
import { runLeaseOptions } from "../lease/lease-settings";
import { type Item, itemOfRecord } from "../plan/item";
import { ownerOf } from "../rules/ownership";
import { EvictedReceipts } from "./evicted-receipt";
import { type ListFill, listIdOf, listNameOf } from "./list-fill";
import type { OwnersOf, OwnersRead, ScopeShare } from "./list-owners";
import { staleReason } from "./stale-scopes";

const idOf = (op: string, key: string) => `${op}\u0000${key}`;

/** A stale scope held for eviction: its lease, its receipt as read under it, its entries there. */
export interface Candidate {
  share: ScopeShare & { stale: "closed" | "idle" };
  owner: string;
  lease: ScopeLease;
  stored: StoredReceipt;
  entries: Array<{ entry: LedgerEntry; item: Item }>;
}

export class Evictions {
  readonly #w: WriterParts;
  readonly #owners: OwnersOf;
  /** The group's fence: each scope lease held for eviction is part of it (write/fence.ts `guard`). */
  readonly #fence: GroupFence;
  /** Scopes asked once per group write: null when busy, not evictable or holding nothing here. */
  readonly #taken = new Map<string, Candidate | null>();
  /** Lists whose owners could not be read under this lease: not read (nor warned of) again. */
  readonly #unread = new Set<string>();
  /** What is written of each evicted scope around its leave. */
  readonly #receipts: EvictedReceipts;

  constructor({ parts: w, fence }: GroupContext, owners: OwnersOf) {
    this.#w = w;
    this.#owners = owners;
    this.#fence = fence;
    this.#receipts = new EvictedReceipts(w);
  }

  /**
   * The list's owners, or null when they could not be read (a receipt or scope state of any owning
   * scope, another repository's too): eviction is help, not the decision, so it then evicts nothing
   * and the run is refused with the counts alone, as without eviction.
   */
  async #ownersOf(fill: ListFill): Promise<OwnersRead | null> {
    if (this.#unread.has(listIdOf(fill))) return null;
    try {
      return await this.#owners(fill);
    } catch (err) {
      // The parent lease lost is the run's failure, not a list that cannot be made room in.
      if (isSponsonError(err) && err.code === "LOCK_LOST") throw err;
      this.#unread.add(listIdOf(fill));
      this.#w.run.warn(`eviction: none on ${fill.object}, its owners were not read: ${String(err)}`);
      return null;
    }
  }

  /**
   * The caller's repository's stale scopes holding entries of `fill`'s object, stalest first, each
   * taken only when asked for: a caller that stops once the run fits holds no more than it needed.
   */
  async *candidates(fill: ListFill): AsyncGenerator<Candidate> {
    const w = this.#w;
    const read = await this.#ownersOf(fill);
    for (const share of read?.answer.scopes ?? []) {
      if (share.stale === null) continue;
      if (share.environment === w.run.environment && share.scope === w.run.scope) continue;
      // Only a scope whose own environment evicts: a preview run never evicts a production scope
      // that merely has not deployed for a while.
      if (w.deps.evictStale?.(share.environment) !== true) continue;
      const c = await this.#take({ ...share, stale: share.stale }, fill);
      if (c) yield c;
    }
  }

  /**
   * An entry's ownership as the list's one owners read under this lease answered it (the same read
   * that ranked the candidates: nobody else changes ownership while the parent lease is held, so it
   * is not read again per scope); undefined for an entry not on that list as read.
   */
  async ownershipOn(fill: ListFill): Promise<(item: Item) => ItemOwnership | undefined> {
    const items = (await this.#ownersOf(fill))?.items ?? [];
    const byId = new Map(items.map((i) => [idOf(i.op, i.key), i]));
    return (item) => byId.get(idOf(item.opName, item.key));
  }

  /** `c`'s entries on `fill`'s list (all on the object where the cap measures the whole object). */
  entriesFor(c: Candidate, fill: ListFill): Item[] {
    const measured = this.#w.deps.ops.get(fill.op)?.capacity?.measure !== undefined;
    // A named list (one CORS rule of a bucket) takes only the entries in that list.
    const onList = (item: Item) => item.opName === fill.op && listNameOf(item) === fill.name;
    return c.entries.filter(({ item }) => measured || onList(item)).map(({ item }) => item);
  }

  /**
   * A taken scope that gives no room after all (its entries shared or gone): released at once,
   * and taken again if another full list needs it.
   */
  async drop(c: Candidate): Promise<void> {
    if (!this.holds(c)) return;
    this.#taken.delete(`${c.share.environment}/${c.share.scope}`);
    this.#fence.unguard(c.lease);
    await c.lease.release().catch(() => {});
  }

  /**
   * An attempt's room is made: every scope held that it does not evict (taken for an earlier
   * attempt, refused and decided again) is given back untouched now, not at the group's end — a
   * write with an unknown outcome would abandon its lease although none of its entries was sent.
   */
  async keepOnly(needed: ReadonlySet<Candidate>): Promise<void> {
    for (const c of [...this.#taken.values()]) if (c !== null && !needed.has(c)) await this.drop(c);
  }

  async #take(share: Candidate["share"], fill: ListFill): Promise<Candidate | null> {
    const id = `${share.environment}/${share.scope}`;
    if (this.#taken.has(id)) return this.#taken.get(id) ?? null;
    this.#taken.set(id, null);
    const { deps, run } = this.#w;
    let lease: ScopeLease;
    try {
      lease = await ScopeLease.acquire(
        deps.locks.scope(run.repository.id, share.environment, share.scope),
        run.id,
        // A give-back's warning is the run's (docs/design.md, "Lease protocol": a lost answer).
        runLeaseOptions(deps, { wait: false }, { onWarning: (m) => run.warn(m) }),
      );
    } catch (err) {
      // Busy (a run of its own, a destroy): never waited for under the parent lease. Any other
      // refusal (the lock overloaded, a reset) skips the scope the same way: it is room this run
      // may do without, not a reason to fail its own changes.
      if (!(err instanceof SponsonError && err.code === "LOCK_HELD"))
        run.warn(`eviction: ${share.scope} skipped, its scope lock was not taken: ${String(err)}`);
      return null;
    }
    try {
      const c = await this.#underLease(share, { lease, fill });
      if (c) {
        this.#taken.set(id, c);
        this.#fence.guard(lease);
      } else await lease.release();
      return c;
    } catch (err) {
      // Every failure under the lease gives it back at once: never left renewing until the run ends.
      run.warn(`eviction: ${share.scope} skipped: ${String(err)}`);
      await lease.release().catch(() => {});
      return null;
    }
  }

  /**
   * The scope's receipt read under its lease, and its staleness decided again from that read and
   * the scope's state now: the owners read that ranked it came before the lease, and its own run
   * (or a reopened PR) may have come in between. Null: nothing to take from it.
   */
  async #underLease(
    share: Candidate["share"],
    { lease, fill }: { lease: ScopeLease; fill: ListFill },
  ): Promise<Candidate | null> {
    const { deps, run } = this.#w;
    const address = { repository: run.repository, environment: share.environment, scope: share.scope };
    const [state, stored] = await Promise.all([
      deps.gate ? deps.gate.read(run.repository.id, share.scope) : null,
      deps.store.read(address),
    ]);
    // A scope with intents to resolve (its lock's of 0.1.x too, until the upgrade drains them) is
    // left to its own next run.
    if (lease.legacyIntents || stored.receipt.intents.length > 0) return null;
    const lastRunAt = stored.receipt.runs.reduce<number | null>(
      (t, r) => Math.max(t ?? 0, r.finishedAt),
      null,
    );
    const staleAfterDays = deps.staleAfterDays?.(share.environment);
    const stale = staleReason({
      status: state?.status ?? null,
      lastRunAt,
      now: deps.clock.now(),
      ...(staleAfterDays !== undefined ? { staleAfterDays } : {}),
    });
    if (stale === null) return null;
    // Every entry on the object: a scope taken for one full list may make room in another too.
    const entries: Candidate["entries"] = [];
    for (const entry of stored.receipt.ledger) {
      if (entry.parent !== fill.object) continue;
      entries.push({ entry, item: itemOfRecord(entry, deps.ops, deps.connections, share.environment) });
    }
    if (entries.length === 0) return null;
    return { share: { ...share, stale, lastRunAt }, owner: ownerOf(address), lease, stored, entries };
  }

  /**
   * The candidates whose lease is lost now, by a round trip each (a renewal that must succeed):
   * asked right before the write and before the leaves. A lost one is dropped: its removals must
   * not be written nor its leave recorded, since another holder may have the scope now.
   */
  async lost(candidates: ReadonlySet<Candidate>): Promise<Candidate[]> {
    const checked = await Promise.all(
      [...candidates].map(async (c) => {
        if (!this.holds(c)) return c;
        try {
          await c.lease.check();
          return null;
        } catch {
          this.#taken.set(`${c.share.environment}/${c.share.scope}`, null);
          this.#fence.unguard(c.lease);
          await c.lease.release().catch(() => {});
          return c;
        }
      }),
    );
    return checked.filter((c): c is Candidate => c !== null);
  }

  /** Whether `c` is still held for eviction (not dropped for a lost lease). */
  holds(c: Candidate): boolean {
    return this.#taken.get(`${c.share.environment}/${c.share.scope}`) === c;
  }

  /**
   * After the write, before the leaves, for each evicted scope still held: its receipt records the
   * eviction first (evicted-receipt.ts), so the leave is never recorded while its ledger still names
   * the entries. Answers the owners whose leave may be recorded; a scope whose receipt was not
   * written keeps owning what its ledger names.
   */
  async noteRemovals(evicted: ReadonlyMap<Candidate, Item[]>): Promise<Set<string>> {
    const noted = await Promise.all(
      [...evicted].map(async ([c, items]) =>
        items.length > 0 && this.holds(c) && (await this.#receipts.beforeLeave(c, items)) ? c.owner : null,
      ),
    );
    return new Set(noted.filter((owner): owner is string => owner !== null));
  }

  /**
   * After the leaves (`left`: whether the call carrying them succeeded), while each lease is still
   * held: the receipt settled and the audit record written (evicted-receipt.ts), and only then the
   * lease released, handing on the receipt's etag. A scope whose lease was lost before its leave
   * keeps its receipt as it was (another holder may have it now), and one whose leave failed keeps
   * its remove intents; either way the removal happened: a warning and the audit trail say so.
   */
  async record(evicted: ReadonlyMap<Candidate, Item[]>, left: boolean): Promise<void> {
    for (const [c, items] of evicted) {
      if (items.length === 0) continue;
      const held = this.holds(c);
      const etag = await this.#receipts.afterLeave(c, items, { held, left });
      if (!held) continue;
      this.#taken.delete(`${c.share.environment}/${c.share.scope}`);
      this.#fence.unguard(c.lease);
      await c.lease.release(etag).catch(() => {});
    }
  }

  /**
   * The scope leases taken and not used (or the write failed): given back untouched. One the fence
   * abandoned (the write's outcome is unknown) is not released: it ends by expiry and lock-delay.
   */
  async releaseAll(): Promise<void> {
    const held = [...this.#taken.values()].filter((c): c is Candidate => c !== null);
    this.#taken.clear();
    for (const c of held) this.#fence.unguard(c.lease);
    await Promise.all(held.map((c) => c.lease.release().catch(() => {})));
  }
}
