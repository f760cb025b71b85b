/**
 * Fitting one attempt's group to the lists' caps and shares, pure (docs/design.md, "Lists at their
 * cap", "A share of each list"): the run's own changes are fitted with no waiter at all, then each
 * waiter in queue order joins only if it still fits. The critical section's capacity
 * (section-capacity.ts) turns the verdict into refusals.
 */
import type { SponsonError } from "../../../shared/errors";
import type { Decided } from "../rules/group-decisions";
import { type CapOf, type ListFill, listFull, overCap } from "./list-fill";
import { quotaExceeded } from "./quota";
import { type SharesInput, waiterOverQuota } from "./quota-under-lease";

/** One attempt's group as the section decides it: the decisions without the waiters named. */
export interface FitInput {
  object: string;
  state: unknown;
  decideFor: (without: ReadonlySet<string>) => Decided[];
  capOf: CapOf;
  /** Whether the lists' caps are checked (else only the shares are). */
  capped: boolean;
  /** The shares of the lists (docs/design.md, "A share of each list"); null where not checked. */
  shares: SharesInput | null;
}

export interface FitVerdict {
  /** The list the run's own changes take past its cap: the group is refused, nothing touched. */
  ownFill: ListFill | null;
  /** Waiters whose changes fit, and those refused alone with why. */
  kept: ReadonlySet<string>;
  refused: ReadonlyMap<string, SponsonError>;
  /** Decided with only the kept waiters (and none named gone). */
  decisions: Decided[];
}

export const waiterOf = (d: Decided) => ("waiter" in d ? (d.waiter as string) : null);

/**
 * Each trial is decided afresh with only the waiters admitted so far: a change that only joined a
 * refused waiter's entry creates it once that waiter is out, so the write sent is always one that
 * was checked. `short`: the list eviction could not make fit, named first when several are full.
 */
export function fitGroup(input: FitInput, gone: ReadonlySet<string>, short: string | null): FitVerdict {
  const { object, state, decideFor, capOf, capped } = input;
  const everyone = decideFor(gone);
  const waiters = [...new Set(everyone.map(waiterOf).filter((x): x is string => x !== null))];
  // The run's own changes are fitted with no waiter at all: a waiter that joins an entry an
  // evicted scope alone owns turns that removal into a let-go, and would refuse the holder.
  const own = decideFor(new Set([...gone, ...waiters])).filter((d) => waiterOf(d) === null);
  const ownFill = capped ? overCap(object, state, own, capOf) : null;
  const kept = new Set<string>();
  const refused = new Map<string, SponsonError>();
  // Several lists full: the one eviction could not make fit is named, not one it could have.
  if (ownFill)
    return { ownFill: overCap(object, state, own, capOf, short) ?? ownFill, kept, refused, decisions: [] };
  const without = (trying: string | null) =>
    new Set([...gone, ...waiters.filter((x) => x !== trying && !kept.has(x))]);
  for (const waiter of waiters) {
    const trial = decideFor(without(waiter));
    // A share first: a waiter past its quota is refused so whatever the list's room.
    const breach = input.shares ? waiterOverQuota(input.shares, { object, trial, waiter }) : null;
    const fill = breach === null && capped ? overCap(object, state, trial, capOf) : null;
    if (breach) refused.set(waiter, quotaExceeded(breach));
    else if (fill) refused.set(waiter, listFull(fill));
    else kept.add(waiter);
  }
  const decisions = kept.size === waiters.length ? everyone : decideFor(without(null));
  return { ownFill: null, kept, refused, decisions };
}
