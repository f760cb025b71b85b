/**
 * One group write (docs/design.md, "Run algorithm"; "One group write, one fence"): a run's changes
 * on one shared object, its parent lease, its fence and its outcome. The lease is taken plainly or
 * by queuing (write combining: another run's write may carry the changes, combined-write.ts); under
 * it the holder's side of combining takes what others queued (holder.ts), the critical section
 * decides and writes (critical-section.ts), and the ownership the removals give up is recorded
 * after the write. A provider refusing a carried change (a 4xx) must not fail this run: the
 * waiters get everything back and the group is written again, its own changes alone.
 */

import { SponsonError } from "../../../shared/errors";
import type { ParentLease } from "../../locks/parent-lock";
import { combines, joinQueue } from "../combining/combined-write";
import { changeId } from "../combining/combining";
import { CombiningHolder } from "../combining/holder";
import type { GroupContext } from "../contracts/group-context";
import type { WaitPolicy, WriterParts } from "../contracts/writer-parts";
import { runListOf } from "../lease/owner-bookkeeping";
import { withParent } from "../lease/parent-lease";
import type { Item } from "../plan/item";
import type { Change, Decided } from "../rules/group-decisions";
import { SimulatedCrash } from "../simulated-crash";
import { CriticalSection } from "./critical-section";
import { Fence } from "./fence";
import type { SectionOutcome } from "./section-io";
import { fault } from "./writer-hooks";

export class GroupWrite {
  readonly #w: WriterParts;
  readonly #changes: readonly Change[];
  readonly #first: Item;
  #touched = false;
  #fence: Fence | null = null;
  readonly #sections: CriticalSection[] = [];

  /** `changes` share one object (`groupChanges`) and are at least one. */
  constructor(w: WriterParts, changes: readonly Change[]) {
    this.#w = w;
    this.#changes = changes;
    this.#first = (changes[0] as Change).item;
  }

  /**
   * Whether ownership or the provider was touched (or a holder took the changes): until then a
   * failure (e.g. the parent lock is held) leaves nothing for the intents to resolve.
   */
  get touched(): boolean {
    return this.#touched;
  }

  /** Whether a write of the group has an unknown outcome (fence.ts): the run takes its object no more. */
  get inDoubt(): boolean {
    return this.#fence?.inDoubt ?? false;
  }

  /** This run's refused creates whose claims could not be withdrawn (CriticalSection.claimsLeft). */
  get claimsLeft(): readonly Change[] {
    return this.#sections.flatMap((s) => s.claimsLeft);
  }

  /** Every change's decision, in order; throws when the group could not be written. */
  async write(waiting: WaitPolicy): Promise<Decided[]> {
    const w = this.#w;
    const first = this.#first;
    // A removal that may only leave is never queued: a holder would decide it as a plain removal.
    // Nor is a group whose run adds to the same list through another group: a holder checks a
    // waiter's share without its plan, and the run's change to a list is decided whole, by itself
    // (docs/design.md, "A share of each list").
    const alone =
      this.#changes.some((c) => c.leaveOnly) ||
      runListOf(
        w,
        this.#changes.map((c) => c.item),
      ).elsewhere.length > 0;
    if (combines(w, first) && !alone) return this.#combined(waiting);
    return withParent(w, { first, waiting, items: this.#changes.map((c) => c.item) }, (lease) =>
      this.#underLease(lease, { own: this.#changes, takeQueue: false }),
    );
  }

  async #combined(waiting: WaitPolicy): Promise<Decided[]> {
    const w = this.#w;
    const changes = this.#changes;
    const joined = await joinQueue(w, { first: this.#first, changes, waiting });
    this.#touched ||= joined.touched;
    if (!joined.ok) throw joined.error;
    const { lease, rest, carried } = joined;
    if (carried.by !== null) {
      w.run.combinedBy(carried.by);
      for (const change of changes)
        if (carried.decided.has(changeId(change))) await fault(w, "after-answer", change, changes);
    }
    let own: Decided[] = [];
    if (lease) {
      try {
        own = await this.#underLease(lease, { own: rest, takeQueue: true });
      } finally {
        await lease.release();
      }
    } else if (rest.length > 0) {
      throw new SponsonError("INTERNAL", `${this.#first.parent}: neither a lease nor every change written`);
    }
    return changes.map(
      (change) => carried.decided.get(changeId(change)) ?? (own.find((d) => d.change === change) as Decided),
    );
  }

  /** The critical section, and the calls after the write, under `lease` (null: no parent lock). */
  async #underLease(
    lease: ParentLease | null,
    { own, takeQueue }: { own: readonly Change[]; takeQueue: boolean },
  ): Promise<Decided[]> {
    const w = this.#w;
    const group = this.#groupUnder(lease);
    const { fence } = group;
    if (lease && own[0]) await fault(w, "after-acquire", own[0], own);
    const taken = takeQueue && lease ? await CombiningHolder.take(w, { first: group.first, lease }) : null;
    const sections: CriticalSection[] = [];
    let done: SectionOutcome;
    try {
      const last = await this.#sectionsUntilWritten(group, { own, carried: taken }, sections);
      done = last.done;
      let left = false;
      try {
        await this.#afterWrite({ fence, lease, carried: last.carried, section: last.section }, done);
        left = true;
      } finally {
        // Evicted scopes (docs/design.md, "Evicting stale scopes"): their leaves are recorded above
        // while their leases are held; only then their receipts, the audit trail and the release.
        // The write removed their entries whatever failed after it: that is recorded too.
        await last.section.recordEvictions(done, { left });
      }
    } finally {
      await Promise.all(sections.map((s) => s.releaseEvictions()));
    }
    if (lease && own[0]) await fault(w, "after-report", own[0], own);
    // Where nothing else followed the write, the release is the parent's check after it.
    await fence.releaseAfterWrite();
    // Every own change has its decision: one the section could not make fails the group instead.
    return own.map((change) => done.decisions.find((d) => d.change === change) ?? undecided(change));
  }

  /** The group's context under `lease`, its fence built once for every section under it. */
  #groupUnder(lease: ParentLease | null): GroupContext<Fence> {
    const w = this.#w;
    const first = this.#first;
    const fence = new Fence({
      scope: w.scopeLease,
      parent: lease,
      checkAfter: w.deps.controls.fencing,
      what: first.parent ?? first.key,
    });
    this.#fence = fence;
    return { parts: w, first, object: first.parent, lease, fence };
  }

  /**
   * Critical sections until one writes: a provider refusing one carried change must not fail this
   * run, so the waiters get everything back and the group is written again, its own changes alone.
   * Each section is added to `sections` as it starts (its stale scopes are released at the end).
   */
  async #sectionsUntilWritten(
    group: GroupContext<Fence>,
    at: { own: readonly Change[]; carried: CombiningHolder | null },
    sections: CriticalSection[],
  ): Promise<{ section: CriticalSection; done: SectionOutcome; carried: CombiningHolder | null }> {
    let { carried } = at;
    // What an earlier section decided as a write and did not write: its item is someone else's if
    // present now, never a claim-back (its claims went when that section failed).
    let refused: ReadonlySet<Change> = new Set();
    for (;;) {
      const section = new CriticalSection({ ...group, own: at.own, carried, refused });
      sections.push(section);
      this.#sections.push(section);
      try {
        const done = await section.run();
        this.#touched ||= section.touched;
        return { section, done, carried };
      } catch (err) {
        this.#touched ||= section.touched;
        if (!carried || err instanceof SimulatedCrash) throw err;
        // A write with an unknown outcome may have carried them onto the provider: they are not
        // reported back as unwritten. The lease's (quiet) end untakes them, and each waiter,
        // granted after the lock-delay, decides from what it reads then.
        if (group.fence.inDoubt) throw err;
        await carried.returnAll(err);
        // Write its own alone — unless a claim could not be withdrawn: its create is marked never
        // written, so no later section under this lease may write it ("A refused write's claims
        // when the withdraw fails").
        if (!(carried.queued.length > 0 && refusedByProvider(err)) || section.claimsLeft.length > 0)
          throw err;
        carried = null;
        refused = section.refused;
        // Refused, nothing written: this section's stale scopes are given back (and unguarded)
        // before the next one may take the same scopes again.
        await section.releaseEvictions();
      }
    }
  }

  /**
   * The ownership the removals give up, only while this run still holds its scope and each evicted
   * scope's lease is still held (round trips), and the holder's report: after a write, the fence
   * counts them as its checks after it.
   */
  async #afterWrite({ fence, lease, carried, section }: AfterWrite, done: SectionOutcome): Promise<void> {
    const planned = done.decisions.flatMap((d) => d.ownersAfter);
    let after = planned;
    if (after.length > 0)
      after = await fence.follow(() => section.leaves(done, () => this.#w.scopeLease.check()), false);
    // The claims of carried changes held back go in the report, which answers them returned.
    if (carried) await fence.follow(() => carried.report(done, [...after, ...done.withdrawn]));
    else if (after.length > 0 && lease) await fence.follow(() => lease.changeOwners(after));
    // The write counted on the leaves as the parent's check after it; every leave dropped (each an
    // evicted scope whose lease was lost meanwhile), that check is still made, by a round trip.
    else if (planned.length > 0 && lease) await fence.follow(() => lease.check());
  }
}

interface AfterWrite {
  fence: Fence;
  lease: ParentLease | null;
  carried: CombiningHolder | null;
  section: CriticalSection;
}

function undecided(change: Change): never {
  throw new SponsonError("INTERNAL", `${change.item.key}: the group's write left no decision for it`);
}

/** A provider's refusal of the request (4xx): the write itself was wrong, not the provider. */
function refusedByProvider(err: unknown): boolean {
  if (!(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") return false;
  const status = err.providerStatus;
  return status !== null && status >= 400 && status < 500;
}
