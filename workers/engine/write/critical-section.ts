import type { OwnedItem, OwnerChange } from "../../../shared/schemas/ownership";
import { keptChanging, MAX_DECIDE_ATTEMPTS, StaleState } from "../../adapters/stale-state";
import { type CapOf, effectiveCap } from "../capacity/list-fill";
import { type FitInput, SectionCapacity } from "../capacity/section-capacity";
import {
  type Change,
  type Decided,
  decideInOrder,
  type Participant,
  withOwnerChanges,
} from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";
import type { ParentCheckAfter } from "./fence";
import { fillsAfterWrite } from "./fill-after-write";
import { retiringOf } from "./owner-bookkeeping";
import { PartlySent, SendStopped, sendWrites } from "./provider-write";
import {
  claimsOf,
  claimsToWithdraw,
  heldBackOf,
  ownClaimsIn,
  type Refused,
  restingOn,
  withSent,
  writtenBefore,
} from "./refused-write";
import type { SectionInput, SectionOutcome } from "./section-io";
import { readSection } from "./section-read";
import { notSentAgain } from "./unanswered";
import { contextOf, fault } from "./writer-parts";

export class CriticalSection {
  readonly #in: SectionInput;
  /** Ownership or the provider was touched: from then on a failure leaves the intents to resolve. */
  #touched = false;
  /** Waiters found gone right before a write: their changes go back, written or not. */
  readonly #gone = new Set<string>();
  /** The lists' caps: fitting, refusals and eviction (capacity/section-capacity.ts). */
  readonly #capacity: SectionCapacity;
  /** Changes an earlier attempt's send wrote before a refusal: decided for good, claims kept. */
  readonly #sent = new Map<Change, Decided>();
  /** Changes decided as writes under this lease, refused or never sent: never a claim-back again. */
  readonly #refused: Set<Change>;
  /** The run's own creates whose claims a failed withdraw left at the lock (`claimsLeft`). */
  #claimsLeft: Change[] = [];
  /** Carried changes on an item an earlier request of the lease got no answer for: they go back. */
  readonly #heldBack = new Set<Change>();
  /** The claims taken back for changes held back in the attempt that wrote. */
  #withdrawn: OwnerChange[] = [];

  /** The run's retiring entries on the object, of its own ops (owner-bookkeeping.ts `retiringOf`). */
  readonly #retiring: OwnedItem[];

  constructor(input: SectionInput) {
    this.#in = input;
    this.#refused = new Set(input.refused);
    this.#retiring = retiringOf(
      input.parts,
      input.own.map((c) => c.item),
    );
    this.#capacity = new SectionCapacity(input.parts, { lease: input.lease, fence: input.fence });
  }

  get touched(): boolean {
    return this.#touched;
  }

  /** Changes decided as writes under this lease and not written: the next section's too. */
  get refused(): ReadonlySet<Change> {
    return this.#refused;
  }

  /** The run's own refused (or unsent) creates whose claims could not be withdrawn (refused-write.ts). */
  get claimsLeft(): readonly Change[] {
    return this.#claimsLeft;
  }

  /**
   * Read, decide, write; a write its precondition refused (StaleState: nothing written) withdraws
   * the claims made for it and is read and decided again, a bounded number of times. A send of
   * several requests refused half-way (PartlySent) keeps what it wrote, claims included, and only
   * the rest is withdrawn, read and decided again (docs/design.md, "Fencing around a write"). The
   * evicted scopes stay held after it: their leaves, receipts and release follow (`leaves`,
   * `recordEvictions`, `releaseEvictions`).
   */
  async run(): Promise<SectionOutcome> {
    try {
      return await this.#attempts();
    } catch (err) {
      // Something a send of several requests wrote has its check after made first.
      throw await this.#in.fence.failure(err);
    }
  }

  /**
   * The ownership the write's removals give up, less an evicted scope's whose lease is lost or
   * whose receipt did not record the eviction first; `check` (the run's own scope check) is made
   * alongside the evicted leases' checks, before any evicted receipt is written.
   */
  leaves(done: SectionOutcome, check: () => Promise<unknown>): Promise<OwnerChange[]> {
    return this.#capacity.leaves(done.decisions, check);
  }

  /**
   * After the leaves (`left`: the call carrying them succeeded): the evicted scopes' receipts
   * settled and audit records, then their release.
   */
  recordEvictions(done: SectionOutcome, how: { left: boolean }): Promise<void> {
    return this.#capacity.recordEvictions(done.decisions, how);
  }

  /** The stale scope leases still held (the write failed, or they were not needed): given back. */
  releaseEvictions(): Promise<void> {
    return this.#capacity.releaseEvictions();
  }

  async #attempts(): Promise<SectionOutcome> {
    const me = ownerOf(this.#in.parts.run);
    for (let attempt = 1; ; attempt += 1) {
      const tried = await this.#attempt(attempt);
      if (!("stale" in tried)) {
        const { full } = this.#capacity;
        return {
          decisions: tried,
          gone: this.#gone,
          full,
          heldBack: this.#heldBack,
          withdrawn: this.#withdrawn,
        };
      }
      for (const d of tried.sent) this.#sent.set(d.change, d);
      for (const d of tried.decisions) if (d.write && !tried.sent.includes(d)) this.#refused.add(d.change);
      // The refused and the unsent wrote nothing: their claims go at once, before anything else.
      const failed = await this.#withdraw(claimsToWithdraw(tried), tried.decisions);
      if (failed) throw failed.err;
      if (attempt >= MAX_DECIDE_ATTEMPTS) {
        const written = writtenBefore(this.#sent.values(), me);
        throw keptChanging(this.#in.first.parent, attempt, tried.stale.detail, written);
      }
    }
  }

  async #attempt(attempt: number): Promise<Decided[] | Refused> {
    const { parts: w, first, lease, fence, own, carried } = this.#in;
    const ctx = fence.context(contextOf(w, first));
    const me = ownerOf(w.run);
    const everyone: Participant[] = [
      ...own.map((change) => ({ change, owner: me })),
      ...(carried?.queued ?? []),
    ];
    // What an earlier attempt wrote is decided; the rest is decided from what is there now, but
    // for a carried change on an item a request of this lease got no answer for: it goes back.
    for (const p of everyone)
      if (!this.#sent.has(p.change) && "waiter" in p && fence.unanswered.has(p.change.item))
        this.#heldBack.add(p.change);
    const all = everyone.filter((p) => !this.#sent.has(p.change) && !this.#heldBack.has(p.change));
    // The ownership those writes give up after the write (a removal's leave) is not recorded yet:
    // the decisions see the items as those writes leave them, as they did in the first attempt.
    const leftBySent = [...this.#sent.values()].flatMap((d) => d.ownersAfter);
    this.#capacity.startAttempt();
    const items = all.map((p) => p.change.item);
    const read = await readSection(w, { first, items, retiring: this.#retiring, lease, fence, ctx });
    const { batch, state, seen } = read;
    let owns = read.owns;
    // Decided in order, each against the item as the ones before leave it; decided again without
    // the waiters found gone right before the write.
    const decideFor = (gone: ReadonlySet<string>) => {
      const kept = all.map((p) => !("waiter" in p) || !gone.has(p.waiter as string));
      const keptOwns = owns?.filter((_, i) => kept[i]) ?? null;
      return decideInOrder(
        all.filter((_, i) => kept[i]),
        seen.filter((_, i) => kept[i]).map((s) => s.present),
        keptOwns && withOwnerChanges(keptOwns, leftBySent),
        this.#refused,
      );
    };
    const capped = state !== null && first.parent !== null && !w.deps.uncapped;
    let decisions = decideFor(new Set());
    // Before anything is touched: a group past a list's cap leaves nothing behind.
    const capOf: CapOf = (item) =>
      effectiveCap(item.op.capacity?.maxEntries, w.deps.connections.capacityOf(item.connection, item.opName));
    // The lists' shares: the run's own are checked before any room is made (a refused run evicts
    // nothing), each waiter's as it is fitted (docs/design.md, "A share of each list").
    const fitInput = (): FitInput => ({
      object: first.parent as string,
      state,
      decideFor,
      capOf,
      capped,
      shares: this.#capacity.sharesInput(read.quota, { owns, retiring: this.#retiring }),
    });
    await this.#capacity.ownShares(fitInput(), this.#gone);
    if (capped && lease && owns) {
      const room = await this.#capacity.makeRoom({
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
      owns = room.owns;
      all.push(...room.added);
      seen.push(...room.seen);
      if (room.added.length > 0) decisions = decideFor(new Set());
    }
    const fit = fitInput();
    const fitted = capped || fit.shares !== null;
    if (fitted) decisions = await this.#capacity.fit(fit, this.#gone);
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
      decisions = fitted
        ? await this.#capacity.fit(fit, this.#gone)
        : decideFor(new Set([...this.#gone, ...this.#capacity.full.keys()]));
    }
    // An own write on an item a request of this lease got no answer for can neither be sent (that
    // attempt may land after it) nor go back to anyone: the group's outcome is unknown.
    const unsendable = decisions.filter(
      (d) => d.write && !("waiter" in d) && fence.unanswered.has(d.change.item),
    );
    if (unsendable.length > 0) throw fence.unknownOutcome(notSentAgain(unsendable.map((d) => d.change.item)));
    const writes = decisions.filter((d) => d.write);
    await fence.claim(decisions.flatMap((d) => d.ownersBefore));
    if (ownWrites[0]) await fault(w, "after-owners", ownWrites[0].change, own);
    // The lists' fill as this write leaves them, carried by the release (no call of its own).
    const noteFills = () => {
      if (capped && lease) lease.noteFills(fillsAfterWrite(state, decisions, capOf, w.deps.clock.now()));
    };
    // A parent call follows the write anyway (a holder's report, the leaves): the fence counts it
    // as the parent's check after the write; with none, the release that ends the lease is.
    const whole = withSent(everyone, this.#sent, decisions);
    const follows = carried !== null || whole.some((d) => d.ownersAfter.length > 0);
    const after: ParentCheckAfter = lease === null ? "renew" : follows ? "call" : "release";
    const ownWritten = () => whole.filter((d) => d.write && d.owner === me && !("waiter" in d));
    if (writes.length === 0) {
      noteFills();
      if (this.#sent.size === 0) return whole;
      // An earlier attempt wrote: its check after the write is owed all the same.
      await fence.afterWrite(after);
      for (const { change } of ownWritten()) await fault(w, "after-write", change, own);
      return whole;
    }
    // Each evicted scope's lease, by a round trip after the claims: one lost since it was taken
    // (force-released, lapsed; also during the claims) may have a holder of its own by now, whose
    // entry this is again; its removals are dropped and the group is read, decided and fitted
    // again without them. A round trip between the claims and the send: through the fence, which
    // then checks the parent again right before the write (its force-release meanwhile).
    if (this.#capacity.evicting) {
      const lost = await fence.follow(() => this.#capacity.evictedLeasesLost(), false);
      if (lost.length > 0)
        return { stale: new StaleState({ evictedLeaseLost: lost }), decisions, owns, sent: [] };
    }
    const toSend = { deps: w.deps, ctx, lease, batch, state, first, writes, items, seen };
    let heldBack: Decided[] = [];
    // Certainly not written, should the write fail: all of it until the send starts, then what it says.
    let unwritten: readonly Decided[] = writes;
    try {
      await fence.write(async () => {
        unwritten = [];
        try {
          heldBack = await sendWrites({ ...toSend, unanswered: fence.unanswered });
        } catch (err) {
          if (!(err instanceof SendStopped)) throw err;
          // The fence sees a partial send as one; any other stop as its failure alone.
          unwritten = err.unwritten;
          throw err instanceof PartlySent ? err : err.failure;
        }
      }, after);
    } catch (err) {
      if (err instanceof StaleState) return { stale: err, decisions, owns, sent: [] };
      if (err instanceof PartlySent && err.refused)
        return { stale: err.refused, decisions, owns, sent: err.sent };
      // The group fails; first the claims of what was not written and of what rested on it go.
      for (const d of unwritten) this.#refused.add(d.change);
      await this.#withdraw(claimsOf(owns, decisions, restingOn(decisions, unwritten)), decisions);
      throw err instanceof PartlySent ? err.failure : err;
    }
    noteFills();
    for (const { change } of ownWritten()) await fault(w, "after-write", change, own);
    if (heldBack.length === 0) return whole;
    // A carried change goes back to its waiter, its claims taken back in the report; an own
    // change (own changes come first, one per item, so only a stale scope's removal) goes nowhere.
    const ownHeld = heldBack.filter((d) => !("waiter" in d));
    if (ownHeld.length > 0) throw fence.unknownOutcome(notSentAgain(ownHeld.map((d) => d.change.item)));
    const held = heldBackOf(decisions, heldBack);
    for (const d of held) this.#heldBack.add(d.change);
    this.#withdrawn = claimsOf(owns, decisions, held);
    return whole.filter((d) => !held.includes(d));
  }

  /**
   * Takes back claims of writes not made; one that fails (the lease lost, the object not reached)
   * leaves the run's own creates among them to their intents' `refused` mark (`claimsLeft`;
   * docs/design.md, "A refused write's claims when the withdraw fails") and answers the failure.
   */
  async #withdraw(undo: OwnerChange[], decisions: readonly Decided[]): Promise<{ err: unknown } | null> {
    try {
      await this.#in.fence.withdraw(undo);
      return null;
    } catch (err) {
      this.#claimsLeft = ownClaimsIn(undo, decisions, ownerOf(this.#in.parts.run));
      return { err };
    }
  }
}
