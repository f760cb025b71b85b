/**
 * One critical section: the group's read, decisions and write under its parent lease, each attempt
 * in five phases — read, decide, fit, claim, send — where deciding and the write plan are pure
 * (section-plan.ts) and the lists' caps are the capacity module's (docs/design.md, "Writing one
 * object's items").
 */
import type { OwnerChange } from "../../../shared/schemas/ownership";
import { keptChanging, MAX_DECIDE_ATTEMPTS, StaleState } from "../../adapters/stale-state";
import { SectionCapacity } from "../capacity/section-capacity";
import { type RunList, runListOf } from "../lease/owner-bookkeeping";
import type { Change, Decided } from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";
import { fillsAfterWrite } from "./fill-after-write";
import {
  claimsOf,
  claimsToWithdraw,
  heldBackOf,
  ownClaimsIn,
  type Refused,
  restingOn,
  writtenBefore,
} from "./refused-write";
import { type AttemptRead, type Fitted, fitAttempt, readAttempt } from "./section-attempt";
import type { SectionInput, SectionOutcome } from "./section-io";
import {
  decideWithout,
  heldBackNow,
  ownWritesOf,
  participantsOf,
  type Settled,
  toDecide,
  unsendableOf,
  type WritePlan,
  writePlanOf,
} from "./section-plan";
import { fencedSend } from "./section-send";
import { notSentAgain } from "./unanswered";
import { fault } from "./writer-hooks";

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

  /** The run's other entries on the object's lists, of its own ops (lease/owner-bookkeeping.ts `runListOf`). */
  readonly #runList: RunList;

  constructor(input: SectionInput) {
    this.#in = input;
    this.#refused = new Set(input.refused);
    this.#runList = runListOf(
      input.parts,
      input.own.map((c) => c.item),
    );
    this.#capacity = new SectionCapacity(input);
  }

  get #settled(): Settled {
    return { sent: this.#sent, refused: this.#refused };
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

  /** One attempt in five phases: read, decide, fit, claim, send (decide and fit's rules pure). */
  async #attempt(n: number): Promise<Decided[] | Refused> {
    const read = await this.#read();
    const fitted = await this.#fit(read, decideWithout(read.group, this.#settled, new Set()));
    const plan = await this.#claim(fitted, n);
    return this.#send(fitted, plan);
  }

  /** Read: the object and every item's ownership again under the lease (section-attempt.ts). */
  #read(): Promise<AttemptRead> {
    const { fence, own, carried, parts } = this.#in;
    const everyone = participantsOf(own, carried?.queued ?? [], ownerOf(parts.run));
    // What an earlier attempt wrote is decided; the rest is decided from what is there now, but
    // for a carried change on an item a request of this lease got no answer for: it goes back.
    for (const change of heldBackNow(everyone, this.#sent, fence.unanswered)) this.#heldBack.add(change);
    const all = toDecide(everyone, this.#sent, this.#heldBack);
    this.#capacity.startAttempt();
    return readAttempt(this.#in, { everyone, all, runList: this.#runList });
  }

  /** Fit: the lists' shares and caps, room made by eviction (section-attempt.ts). */
  #fit(read: AttemptRead, decided: Decided[]): Promise<Fitted> {
    const at = {
      capacity: this.#capacity,
      settled: this.#settled,
      gone: this.#gone,
      runList: this.#runList,
    };
    return fitAttempt(this.#in, read, decided, at);
  }

  /**
   * Claim: the claims, joins and the write itself only while this run holds its scope, asked of
   * the scope's lock object (a round trip): a force-released or recovered scope's run has a
   * deadline that has not passed, and would record an owner no receipt names (docs/design.md,
   * "Ownership"). Each waiter's run must still hold its own scope too: the check at the take may
   * be long past.
   */
  async #claim(a: Fitted, n: number): Promise<WritePlan> {
    const { parts: w, fence, own, carried, lease } = this.#in;
    const ownWrites = ownWritesOf(a.decisions, ownerOf(w.run));
    if (n === 1) for (const { change } of ownWrites) await fault(w, "after-intent", change, own);
    this.#touched = true;
    const [, goneList] = await Promise.all([
      a.decisions.some((d) => d.write || d.ownersBefore.length > 0) ? w.scopeLease.check() : null,
      carried ? carried.goneNow() : ([] as string[]),
    ]);
    let decisions = a.decisions;
    if (goneList.length > 0) {
      for (const waiter of goneList) this.#gone.add(waiter);
      // A gone waiter's removal may have been what made room: the others are fitted again, and a
      // waiter that no longer fits is refused alone (the run's own changes fit without any waiter).
      decisions = a.fitted
        ? await this.#capacity.fit(a.fit, this.#gone)
        : decideWithout(a.group, this.#settled, new Set([...this.#gone, ...this.#capacity.full.keys()]));
    }
    const unsendable = unsendableOf(decisions, fence.unanswered);
    if (unsendable.length > 0) throw fence.unknownOutcome(notSentAgain(unsendable));
    await fence.claim(decisions.flatMap((d) => d.ownersBefore));
    if (ownWrites[0]) await fault(w, "after-owners", ownWrites[0].change, own);
    const at = { everyone: a.everyone, sent: this.#sent, carried: carried !== null, leased: lease !== null };
    return writePlanOf(decisions, at);
  }

  /**
   * Send: the group's one fenced write. Each evicted scope's lease is checked first, by a round
   * trip after the claims: one lost since it was taken (force-released, lapsed; also during the
   * claims) may have a holder of its own by now, whose entry this is again; its removals are
   * dropped and the group is read, decided and fitted again without them. A round trip between the
   * claims and the send: through the fence, which then checks the parent again right before the
   * write (its force-release meanwhile).
   */
  async #send(a: Fitted, plan: WritePlan): Promise<Decided[] | Refused> {
    const { decisions, writes, whole, after } = plan;
    const owns = a.group.owns;
    if (writes.length === 0) {
      this.#noteFills(a, decisions);
      if (this.#sent.size === 0) return whole;
      // An earlier attempt wrote: its check after the write is owed all the same.
      await this.#in.fence.afterWrite(after);
      await this.#afterWrite(whole);
      return whole;
    }
    if (this.#capacity.evicting) {
      const lost = await this.#in.fence.follow(() => this.#capacity.evictedLeasesLost(), false);
      if (lost.length > 0)
        return { stale: new StaleState({ evictedLeaseLost: lost }), decisions, owns, sent: [] };
    }
    const sent = await fencedSend(this.#in, a, plan);
    if ("failed" in sent) {
      // The group fails; first the claims of what was not written and of what rested on it go.
      for (const d of sent.unwritten) this.#refused.add(d.change);
      await this.#withdraw(claimsOf(owns, decisions, restingOn(decisions, sent.unwritten)), decisions);
      throw sent.failed;
    }
    if ("stale" in sent) return sent;
    this.#noteFills(a, decisions);
    await this.#afterWrite(whole);
    if (sent.heldBack.length === 0) return whole;
    // A carried change goes back to its waiter, its claims taken back in the report; an own
    // change (own changes come first, one per item, so only a stale scope's removal) goes nowhere.
    const ownHeld = sent.heldBack.filter((d) => !("waiter" in d));
    if (ownHeld.length > 0)
      throw this.#in.fence.unknownOutcome(notSentAgain(ownHeld.map((d) => d.change.item)));
    const held = heldBackOf(decisions, sent.heldBack);
    for (const d of held) this.#heldBack.add(d.change);
    this.#withdrawn = claimsOf(owns, decisions, held);
    return whole.filter((d) => !held.includes(d));
  }

  /** The lists' fill as this write leaves them, carried by the release (no call of its own). */
  #noteFills(a: Fitted, decisions: readonly Decided[]): void {
    const { lease, parts: w } = this.#in;
    if (a.capped && lease) lease.noteFills(fillsAfterWrite(a.state, decisions, a.capOf, w.deps.clock.now()));
  }

  /** The test-only fault hook after the write, for each of the run's own changes written. */
  async #afterWrite(whole: readonly Decided[]): Promise<void> {
    const { parts: w, own } = this.#in;
    for (const { change } of ownWritesOf(whole, ownerOf(w.run))) await fault(w, "after-write", change, own);
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
