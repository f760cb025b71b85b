/**
 * What every group write of one run shares (write/item-writer.ts builds it once per run): the
 * group write and the modules it composes take it, and so do the layers below it that a group
 * write calls — the parent lease and the ownership its lock keeps (lease/), the lists' capacity
 * (capacity/) and write combining (combining/).
 */
import type { ScopeLease } from "../../locks/scope-lock";
import type { WaitDeadline } from "../../locks/wait-deadline";
import type { EngineDeps } from "../deps";
import type { ItemRef } from "../plan/item";
import type { ProviderContexts } from "../provider-context";
import type { Change, WriteOutcome } from "../rules/group-decisions";
import type { WriterRun, WriterSession } from "./writer-run";

export interface WriterParts {
  readonly deps: EngineDeps;
  readonly run: WriterRun;
  readonly session: WriterSession;
  readonly scopeLease: ScopeLease;
  readonly contexts: ProviderContexts;
  /**
   * Parents where a write of this run has an unknown outcome (write/fence.ts): the run takes none
   * of them again (its rollback would take the lock again before the lock-delay that keeps others
   * out of a late landing, and meet that landing itself); their intents stay for recovery.
   */
  readonly inDoubt: ReadonlySet<string>;
  /**
   * Apply only: every item the run's plan wants. Its share of a list counts what the plan leaves it
   * holding (docs/design.md, "A share of each list"); undefined for a run that only removes.
   */
  readonly planned?: readonly ItemRef[];
  /**
   * Apply only: the creates of the run's groups still to be written (`ItemWriter.expect`): what
   * its later groups add to a list its present group writes too, through another connection
   * (docs/design.md, "A share of each list"). Empty once the run's creates are done.
   */
  readonly ahead?: ReadonlySet<Change>;
}

/** How a lease is asked for: waiting in line or not, and until when (docs/design.md, "Lease protocol"). */
export interface WaitPolicy {
  wait: boolean;
  /** The run's one wait deadline, shared by every acquire of the run; unset only for a try. */
  deadline?: WaitDeadline;
}

/** What became of one change: its outcome, and the run whose write carried it when not this one. */
export interface Written {
  outcome: WriteOutcome;
  writtenBy?: string;
}
