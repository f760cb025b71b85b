/**
 * The critical section of a group write, under the parent lease (docs/design.md, "Run algorithm"):
 * one read, every item's ownership, the decisions in order, the claims, one provider write carrying
 * every change, all fenced by the group's one Fence (fence.ts). It writes the changes it is given;
 * whose they are is the combining holder's business (combining/holder.ts), which it asks only,
 * right before the write, which carried changes must go back.
 */
import type { SponsonError } from "../../../shared/errors";
import type { ItemOwnership, OwnerChange } from "../../../shared/schemas/ownership";
import type { Inspection } from "../../adapters/op-spec";
import { keptChanging, MAX_DECIDE_ATTEMPTS, StaleState } from "../../adapters/stale-state";
import type { ParentLock } from "../../locks/parent-lock";
import { type Candidate, Evictions } from "../capacity/eviction";
import { type CapOf, effectiveCap, type ListFill, listFull, overCap } from "../capacity/list-fill";
import { type OwnersOf, ownersOnce } from "../capacity/list-owners";
import { makeRoom } from "../capacity/make-room";
import type { Queued } from "../combining/combining";
import type { Item } from "../plan/item";
import {
  type Change,
  type Decided,
  decideInOrder,
  keysOf,
  type Participant,
  undoChanges,
} from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";
import type { Fence, ParentCheckAfter } from "./fence";
import { fillsAfterWrite } from "./fill-after-write";
import { ownershipOf } from "./owner-bookkeeping";
import { sendWrites } from "./provider-write";
import { readUnderLease } from "./recent-writes-section";
import { contextOf, fault, type WriterParts } from "./writer-parts";

/** Changes another run queued that this write carries (write combining's holder). */
export interface Carried {
  readonly queued: readonly Queued[];
  /** The waiters whose run no longer holds its scope lease, asked right before the write. */
  goneNow(): Promise<string[]>;
}

export interface SectionInput {
  parts: WriterParts;
  /** The group's first item: its object, connection and params address the one read and write. */
  first: Item;
  lease: ParentLock | null;
  fence: Fence;
  own: readonly Change[];
  /** Null when no waiter's changes were taken (then no report follows the write). */
  carried: Carried | null;
}

/** What the section decided (own changes first, then carried ones) and whose changes went back. */
export interface SectionOutcome {
  decisions: Decided[];
  gone: ReadonlySet<string>;
  /** Waiters whose changes did not fit the list's cap (docs/design.md, "Lists at their cap"). */
  full: ReadonlyMap<string, SponsonError>;
}

/** A write its precondition refused: nothing written; what was decided and claimed for it. */
interface Refused {
  stale: StaleState;
  decisions: Decided[];
  owns: ItemOwnership[] | null;
}

export class CriticalSection {
  readonly #in: SectionInput;
  /** Ownership or the provider was touched: from then on a failure leaves the intents to resolve. */
  #touched = false;
  /** Waiters found gone right before a write: their changes go back, written or not. */
  readonly #gone = new Set<string>();
  /** Waiters whose changes would take a list past its cap: they go back, refused alone. */
  readonly #full = new Map<string, SponsonError>();
  /** With the environment's `evictStale`: the stale scopes taken to make room (eviction.ts). */
  readonly #evictions: Evictions | null;
  /** The removals eviction added, by change: whose entry each one is. */
  #evicted = new Map<Change, Candidate>();

  /** Who holds a full list, read once under this lease (eviction and the refusal share it). */
  readonly #owners: OwnersOf | null;

  constructor(input: SectionInput) {
    this.#in = input;
    const { deps, run } = input.parts;
    this.#owners =
      input.lease !== null && deps.ownership
        ? ownersOnce({ deps, lease: input.lease, repository: run.repository })
        : null;
    this.#evictions =
      this.#owners !== null && deps.evictStale?.(run.environment) === true
        ? new Evictions(input.parts, this.#owners)
        : null;
  }

  get touched(): boolean {
    return this.#touched;
  }

  /**
   * Read, decide, write; a write its precondition refused (StaleState: nothing written) withdraws
   * the claims made for it and is read and decided again, a bounded number of times. The evicted
   * scopes stay held after it: their leaves, receipts and release follow (`leaves`, `recordEvictions`,
   * `releaseEvictions`).
   */
  async run(): Promise<SectionOutcome> {
    return this.#run();
  }

  /**
   * The ownership the write's removals give up, checked right before it is recorded: an evicted
   * scope whose lease is lost by now keeps its ownership (another holder may have the scope; its
   * receipt is then not written either, and its destroy finds the entry absent).
   */
  async leaves(done: SectionOutcome): Promise<OwnerChange[]> {
    const after = done.decisions.flatMap((d) => d.ownersAfter);
    if (!this.#evictions || this.#evicted.size === 0) return after;
    const lost = await this.#evictions.lost(new Set(this.#evicted.values()));
    const gone = new Set(lost.map((c) => c.owner));
    return after.filter((change) => !("owner" in change && gone.has(change.owner as string)));
  }

  /** After the leaves: the evicted scopes' receipts and audit records, then their release. */
  async recordEvictions(done: SectionOutcome): Promise<void> {
    await this.#evictions?.record(this.#evictedItems(done.decisions));
  }

  /** The stale scope leases still held (the write failed, or they were not needed): given back. */
  async releaseEvictions(): Promise<void> {
    await this.#evictions?.releaseAll();
  }

  /** The evicted scopes' items the write removed or found gone (not those only let go of). */
  #evictedItems(decisions: readonly Decided[]): Map<Candidate, Item[]> {
    const out = new Map<Candidate, Item[]>();
    for (const d of decisions) {
      const c = this.#evicted.get(d.change);
      if (!c || d.outcome === "left") continue;
      out.set(c, [...(out.get(c) ?? []), d.change.item]);
    }
    return out;
  }

  async #run(): Promise<SectionOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      const tried = await this.#attempt(attempt);
      if (!("stale" in tried)) return { decisions: tried, gone: this.#gone, full: this.#full };
      if (attempt >= MAX_DECIDE_ATTEMPTS)
        throw keptChanging(this.#in.first.parent, attempt, tried.stale.detail);
      const claimed = tried.decisions.flatMap((d) => d.ownersBefore);
      await this.#in.fence.withdraw(tried.owns ? undoChanges(tried.owns, claimed) : []);
    }
  }

  async #attempt(attempt: number): Promise<Decided[] | Refused> {
    const { parts: w, first, lease, fence, own, carried } = this.#in;
    const ctx = fence.context(contextOf(w, first));
    const me = ownerOf(w.run);
    const all: Participant[] = [...own.map((change) => ({ change, owner: me })), ...(carried?.queued ?? [])];
    this.#evicted = new Map();
    const items = all.map((p) => p.change.item);
    // The read made before the lease may be stale: decide from what is there now.
    const batch = first.op.batch && first.parent !== null ? first.op.batch : null;
    // A provider that may not show a recent write yet gets the lock's memory of it merged in.
    const state = batch ? await readUnderLease(w.deps, { batch, ctx, params: first.params, lease }) : null;
    const seen: Inspection[] = [];
    for (const item of items) {
      // Each op sees its own list in the object read once.
      seen.push(
        state !== null
          ? { present: keysOf(item, state).includes(item.key) }
          : await item.op.inspect(ctx, item.params),
      );
    }
    let owns = await ownershipOf(w, { items, lease, fence, ctx, state });
    // Decided in order, each against the item as the ones before leave it; decided again without
    // the waiters found gone right before the write.
    const decideFor = (gone: ReadonlySet<string>) => {
      const kept = all.map((p) => !("waiter" in p) || !gone.has(p.waiter as string));
      return decideInOrder(
        all.filter((_, i) => kept[i]),
        seen.filter((_, i) => kept[i]).map((s) => s.present),
        owns?.filter((_, i) => kept[i]) ?? null,
      );
    };
    const capped = state !== null && first.parent !== null && !w.deps.uncapped;
    let decisions = decideFor(new Set());
    // Before anything is touched: a group past a list's cap leaves nothing behind.
    const capOf: CapOf = (item) =>
      effectiveCap(item.op.capacity?.maxEntries, w.deps.connections.capacityOf(item.connection, item.opName));
    if (capped && lease && owns && this.#evictions) {
      const room = await makeRoom(w, this.#evictions, {
        object: first.parent as string,
        state,
        lease,
        fence,
        ctx,
        capOf,
        all,
        seen,
        owns,
      });
      this.#evicted = room.evicted;
      owns = room.owns;
      all.push(...room.added);
      seen.push(...room.seen);
      if (room.added.length > 0) decisions = decideFor(new Set());
    }
    if (capped) decisions = await this.#fit(first.parent as string, state, decideFor, capOf);
    const ownWrites = decisions.filter((d) => d.write && d.owner === me && !("waiter" in d));
    if (attempt === 1) for (const { change } of ownWrites) await fault(w, "after-intent", change, own);
    this.#touched = true;
    // Claims, joins and the write itself only while this run holds its scope, asked of the scope's
    // lock object (a round trip): a force-released or recovered scope's run has a deadline that has
    // not passed, and would record an owner no receipt names (docs/design.md, "Ownership"). Each
    // waiter's run must still hold its own scope too: the check at the take may be long past.
    const [, goneList] = await Promise.all([
      decisions.some((d) => d.write || d.ownersBefore.length > 0) ? w.scopeLease.check() : null,
      carried ? carried.goneNow() : ([] as string[]),
    ]);
    if (goneList.length > 0) {
      for (const waiter of goneList) this.#gone.add(waiter);
      // A gone waiter's removal may have been what made room: the others are fitted again, and a
      // waiter that no longer fits is refused alone (the run's own changes fit without any waiter).
      decisions = capped
        ? await this.#fit(first.parent as string, state, decideFor, capOf)
        : decideFor(new Set([...this.#gone, ...this.#full.keys()]));
    }
    const writes = decisions.filter((d) => d.write);
    await fence.claim(decisions.flatMap((d) => d.ownersBefore));
    if (ownWrites[0]) await fault(w, "after-owners", ownWrites[0].change, own);
    // The lists' fill as this write leaves them, carried by the release (no call of its own).
    const noteFills = () => {
      if (capped && lease) lease.noteFills(fillsAfterWrite(state, decisions, capOf, w.deps.clock.now()));
    };
    if (writes.length === 0) {
      noteFills();
      return decisions;
    }
    // A parent call follows the write anyway (a holder's report, the leaves): the fence counts it
    // as the parent's check after the write; with none, the release that ends the lease is.
    const follows = carried !== null || decisions.some((d) => d.ownersAfter.length > 0);
    const after: ParentCheckAfter = lease === null ? "renew" : follows ? "call" : "release";
    // Each evicted scope's lease, by a round trip right before the write: one lost since it was
    // taken (force-released, lapsed) may have a holder of its own by now, whose entry this is again.
    // Its removals are dropped and the group is read, decided and fitted again without them.
    if (this.#evictions && this.#evicted.size > 0) {
      const lost = await this.#evictions.lost(new Set(this.#evicted.values()));
      if (lost.length > 0)
        return {
          stale: new StaleState({
            evictedLeaseLost: lost.map((c) => `${c.share.environment}/${c.share.scope}`),
          }),
          decisions,
          owns,
        };
    }
    try {
      await fence.write(
        () =>
          sendWrites({
            deps: w.deps,
            ctx,
            lease,
            batch,
            state,
            first,
            writes,
            items: all.map((p) => p.change.item),
            seen,
          }),
        after,
      );
    } catch (err) {
      if (err instanceof StaleState) return { stale: err, decisions, owns };
      throw err;
    }
    noteFills();
    for (const { change } of ownWrites) await fault(w, "after-write", change, own);
    return decisions;
  }

  /**
   * The run's own changes must fit the list's cap, or the group is refused (LIST_FULL, nothing
   * touched); then each waiter in queue order joins the write only if it still fits, else its
   * changes go back and it is refused alone when it writes them itself. Each trial is decided
   * afresh with only the waiters admitted so far: a change that only joined a refused waiter's
   * entry creates it once that waiter is out, so the write sent is always one that was checked.
   * Waiters found gone are left out.
   */
  async #fit(
    object: string,
    state: unknown,
    decideFor: (without: ReadonlySet<string>) => Decided[],
    capOf: CapOf,
  ): Promise<Decided[]> {
    const waiterOf = (d: Decided) => ("waiter" in d ? (d.waiter as string) : null);
    const everyone = decideFor(this.#gone);
    const waiters = [...new Set(everyone.map(waiterOf).filter((x): x is string => x !== null))];
    // The run's own changes are fitted with no waiter at all: a waiter that joins an entry an
    // evicted scope alone owns turns that removal into a let-go, and would refuse the holder.
    const own = decideFor(new Set([...this.#gone, ...waiters])).filter((d) => waiterOf(d) === null);
    const ownFill = overCap(object, state, own, capOf);
    if (ownFill) throw await this.#refusal(ownFill);
    const kept = new Set<string>();
    const without = (trying: string | null) =>
      new Set([...this.#gone, ...waiters.filter((x) => x !== trying && !kept.has(x))]);
    for (const waiter of waiters) {
      const fill = overCap(object, state, decideFor(without(waiter)), capOf);
      if (fill) this.#full.set(waiter, listFull(fill));
      else {
        kept.add(waiter);
        this.#full.delete(waiter);
      }
    }
    return kept.size === waiters.length ? everyone : decideFor(without(null));
  }

  /**
   * The run's own refusal names who holds the list (its owners under this lease, their scopes'
   * staleness); a waiter's goes back without it and its own check answers in full. The detail is
   * help, not the decision: failing to gather it still refuses, with the counts alone.
   */
  async #refusal(fill: ListFill): Promise<SponsonError> {
    const w = this.#in.parts;
    if (this.#owners === null) return listFull(fill);
    try {
      return listFull(fill, (await this.#owners(fill)).answer);
    } catch (err) {
      w.deps.warn?.(`list-full: the owners of ${fill.object} were not read: ${String(err)}`);
      return listFull(fill);
    }
  }
}
