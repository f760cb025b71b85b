/**
 * A critical section attempt's read and fit phases (critical-section.ts): the object and every
 * item's ownership read again under the lease, then the lists' shares and caps checked against
 * that read, with room made by evicting stale scopes where the environment allows
 * (docs/design.md, "Writing one object's items", "Lists at their cap", "A share of each list").
 */
import { sectionBudget } from "../../adapters/http/provider-budget";
import type { OpContext } from "../../adapters/op-spec";
import type { FitInput } from "../capacity/fitting";
import { type CapOf, connectionCap } from "../capacity/list-fill";
import type { SectionCapacity } from "../capacity/section-capacity";
import { alongOf, type RunList } from "../lease/owner-bookkeeping";
import type { Item } from "../plan/item";
import type { Decided, Participant } from "../rules/group-decisions";
import type { SectionInput } from "./section-io";
import { type AttemptGroup, decideWithout, type Settled, withRoom } from "./section-plan";
import { readSection, type SectionRead } from "./section-read";
import { contextOf } from "./writer-hooks";

/** An attempt's read phase: the object and ownership as read, the group to decide, the caps. */
export interface AttemptRead extends SectionRead {
  ctx: OpContext;
  /** Every participant of the section, an earlier attempt's sent ones included. */
  everyone: Participant[];
  /** The items read (the group's before any room is made). */
  items: Item[];
  group: AttemptGroup;
  /** Whether the lists' caps are checked, and each list's cap. */
  capped: boolean;
  capOf: CapOf;
}

/** An attempt once fitted: the group with any room made, and its decisions. */
export interface Fitted extends AttemptRead {
  fit: FitInput;
  /** Whether the caps or shares were checked (then a gone waiter means fitting again). */
  fitted: boolean;
  decisions: Decided[];
}

/** What the fit phase works with across attempts (the critical section's state). */
export interface FitState {
  capacity: SectionCapacity;
  settled: Settled;
  /** Waiters found gone right before a write. */
  gone: ReadonlySet<string>;
  /** The run's other entries on the object's lists (lease/owner-bookkeeping.ts `runListOf`). */
  runList: RunList;
}

/** Read: `all` (who this attempt decides) read under the lease, in one read of the object. */
export async function readAttempt(
  input: SectionInput,
  at: { everyone: Participant[]; all: Participant[]; runList: RunList },
): Promise<AttemptRead> {
  const { parts: w, first, fence } = input;
  // The read and its write take the provider's budget together, before the read ("Write budgets").
  const ctx = sectionBudget(fence.context(contextOf(w, first)));
  const items = at.all.map((p) => p.change.item);
  const read = await readSection(input, { items, along: alongOf(at.runList), ctx });
  const group: AttemptGroup = { all: at.all, seen: read.seen, owns: read.owns };
  // Before anything is touched: a group past a list's cap leaves nothing behind.
  const capped = read.state !== null && input.object !== null && w.deps.controls.listCaps;
  const capOf: CapOf = (item) =>
    connectionCap(item.op.capacity, w.deps.connections.capacityOf(item.connection, item.opName));
  return { ...read, ctx, everyone: at.everyone, items, group, capped, capOf };
}

/**
 * Fit: the lists' shares, the run's own checked before any room is made (a refused run evicts
 * nothing), each waiter's as it is fitted (docs/design.md, "A share of each list"); then room
 * made by eviction and the caps. `decided`: the read group's decisions, kept when nothing is fitted.
 */
export async function fitAttempt(
  input: SectionInput,
  read: AttemptRead,
  decided: Decided[],
  s: FitState,
): Promise<Fitted> {
  const { lease } = input;
  const { state, capped, capOf } = read;
  let group = read.group;
  await s.capacity.ownShares(fitInputOf(input, read, group, s), s.gone);
  if (capped && lease && group.owns) {
    const room = await s.capacity.makeRoom({
      ...{ state, lease, ctx: read.ctx, capOf },
      ...{ all: group.all, seen: group.seen, owns: group.owns },
    });
    group = withRoom(group, room);
  }
  const fit = fitInputOf(input, read, group, s);
  const fitted = capped || fit.shares !== null;
  const decisions = fitted ? await s.capacity.fit(fit, s.gone) : decided;
  return { ...read, group, fit, fitted, decisions };
}

function fitInputOf(input: SectionInput, read: AttemptRead, group: AttemptGroup, s: FitState): FitInput {
  return {
    object: input.object as string,
    state: read.state,
    decideFor: (gone) => decideWithout(group, s.settled, gone),
    capOf: read.capOf,
    capped: read.capped,
    shares: s.capacity.sharesInput(read.quota, { owns: group.owns, runList: s.runList }),
  };
}
