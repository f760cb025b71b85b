/**
 * What a critical section is handed and what it answers (critical-section.ts): the group's own
 * changes and the ones it carries for waiters in, the decisions and whose changes went back out.
 */
import type { SponsonError } from "../../../shared/errors";
import type { OwnerChange } from "../../../shared/schemas/ownership";
import type { Carried } from "../combining/combining";
import type { GroupContext } from "../contracts/group-context";
import type { Change, Decided } from "../rules/group-decisions";
import type { Fence } from "./fence";

export interface SectionInput extends GroupContext<Fence> {
  own: readonly Change[];
  /** Null when no waiter's changes were taken (then no report follows the write). */
  carried: Carried | null;
  /**
   * Changes an earlier section under this lease decided as writes and did not write (its
   * `refused`): never a claim-back in this one either (docs/design.md, "Write combining").
   */
  refused?: ReadonlySet<Change>;
}

/** What the section decided (own changes first, then carried ones) and whose changes went back. */
export interface SectionOutcome {
  decisions: Decided[];
  gone: ReadonlySet<string>;
  /** Waiters whose changes did not fit the list's cap (docs/design.md, "Lists at their cap"). */
  full: ReadonlyMap<string, SponsonError>;
  /** Carried changes held back (an earlier request on their item unanswered), `withdrawn` their claims. */
  heldBack: ReadonlySet<Change>;
  withdrawn: readonly OwnerChange[];
}
