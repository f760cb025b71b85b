/**
 * The critical section's pure steps (critical-section.ts): who takes part in an attempt, what it
 * decides from what was read, and the write plan its claim and send phases carry out. No I/O: each
 * answer is a function of its arguments (docs/design.md, "Writing one object's items").
 */
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import type { Inspection } from "../../adapters/op-spec";
import type { Item } from "../plan/item";
import {
  type Change,
  type Decided,
  decideInOrder,
  type Participant,
  withOwnerChanges,
} from "../rules/group-decisions";
import type { ParentCheckAfter } from "./fence-phase";
import { withSent } from "./refused-write";

/** One attempt's group as read: who takes part, each item's inspection and ownership, in order. */
export interface AttemptGroup {
  readonly all: readonly Participant[];
  readonly seen: readonly Inspection[];
  readonly owns: ItemOwnership[] | null;
}

/** What the section decided so far across attempts: written for good, or never a claim-back again. */
export interface Settled {
  /** Changes an earlier attempt's send wrote before a refusal. */
  readonly sent: ReadonlyMap<Change, Decided>;
  /** Changes decided as writes under this lease and not written. */
  readonly refused: ReadonlySet<Change>;
}

const isWaiter = (p: Participant) => "waiter" in p;

/** The run's own changes first (owned by `me`), then the carried ones in queue order. */
export function participantsOf(
  own: readonly Change[],
  queued: readonly Participant[],
  me: string,
): Participant[] {
  return [...own.map((change) => ({ change, owner: me })), ...queued];
}

/**
 * The carried changes an attempt holds back: those on an item a request of this lease got no
 * answer for (it may land after this one), unless an earlier attempt already wrote them.
 */
export function heldBackNow(
  everyone: readonly Participant[],
  sent: ReadonlyMap<Change, unknown>,
  unanswered: { has(item: Item): boolean },
): Change[] {
  return everyone
    .filter((p) => !sent.has(p.change) && isWaiter(p) && unanswered.has(p.change.item))
    .map((p) => p.change);
}

/** Who this attempt decides: not written by an earlier attempt, not held back. */
export function toDecide(
  everyone: readonly Participant[],
  sent: ReadonlyMap<Change, unknown>,
  heldBack: ReadonlySet<Change>,
): Participant[] {
  return everyone.filter((p) => !sent.has(p.change) && !heldBack.has(p.change));
}

/**
 * Decided in order, each against the item as the ones before leave it, without the waiters named
 * `gone`. The ownership an earlier attempt's writes give up after the write (a removal's leave) is
 * not recorded yet: the decisions see the items as those writes leave them.
 */
export function decideWithout(group: AttemptGroup, settled: Settled, gone: ReadonlySet<string>): Decided[] {
  const kept = group.all.map((p) => !isWaiter(p) || !gone.has((p as { waiter: string }).waiter));
  const leftBySent = [...settled.sent.values()].flatMap((d) => d.ownersAfter);
  const keptOwns = group.owns?.filter((_, i) => kept[i]) ?? null;
  return decideInOrder(
    group.all.filter((_, i) => kept[i]),
    group.seen.filter((_, i) => kept[i]).map((s) => s.present),
    keptOwns && withOwnerChanges(keptOwns, leftBySent),
    settled.refused,
  );
}

/** The group once eviction made room: its removals join, the ownership as eviction left it. */
export function withRoom(
  group: AttemptGroup,
  room: { owns: ItemOwnership[]; added: readonly Participant[]; seen: readonly Inspection[] },
): AttemptGroup {
  return { all: [...group.all, ...room.added], seen: [...group.seen, ...room.seen], owns: room.owns };
}

/** The run's own writes among `decisions` (a waiter's are not). */
export function ownWritesOf(decisions: readonly Decided[], me: string): Decided[] {
  return decisions.filter((d) => d.write && d.owner === me && !isWaiter(d));
}

/**
 * An own write on an item a request of this lease got no answer for can neither be sent (that
 * attempt may land after it) nor go back to anyone: its items, the group's outcome then unknown.
 */
export function unsendableOf(
  decisions: readonly Decided[],
  unanswered: { has(item: Item): boolean },
): Item[] {
  return decisions
    .filter((d) => d.write && !isWaiter(d) && unanswered.has(d.change.item))
    .map((d) => d.change.item);
}

/** What one attempt claims and sends, decided before either. */
export interface WritePlan {
  decisions: Decided[];
  /** The decisions sent to the provider, in the group's one write. */
  writes: Decided[];
  /** Every change of the group: an earlier attempt's sent ones placed among this one's decisions. */
  whole: Decided[];
  /** The parent's check after the write (fence-phase.ts `ParentCheckAfter`). */
  after: ParentCheckAfter;
}

/**
 * A parent call follows the write anyway (a holder's report, the leaves): the fence counts it as
 * the parent's check after the write; with none, the release that ends the lease is.
 */
export function writePlanOf(
  decisions: Decided[],
  at: {
    everyone: readonly Participant[];
    sent: ReadonlyMap<Change, Decided>;
    carried: boolean;
    leased: boolean;
  },
): WritePlan {
  const whole = withSent(at.everyone, at.sent, decisions);
  const follows = at.carried || whole.some((d) => d.ownersAfter.length > 0);
  const after: ParentCheckAfter = !at.leased ? "renew" : follows ? "call" : "release";
  return { decisions, writes: decisions.filter((d) => d.write), whole, after };
}
