/**
 * What a queued run tells its caller while it waits (docs/design.md, "Lock answers"): a report soon
 * after it starts waiting and one every WAITING_REPORT_MS, each asking the lock object its place
 * and its holder (a read-only call), with what is left of the run's wait budget. The wait itself is one open call to the object, which answers
 * only with the grant or the refusal, so the reports are a side channel beside it: a report that
 * fails is skipped, never the wait.
 */
import type { Clock } from "../../shared/clock";
import type { Waiting } from "../../shared/schemas/run";
import type { LeaseTarget } from "./lock-target";
import type { WaitDeadline } from "./wait-deadline";

/** How soon after a wait starts the first report is made: a lock granted sooner is reported never. */
export const WAITING_FIRST_REPORT_MS = 1_000;
/** Then one report every this long (the CLI prints each one). */
export const WAITING_REPORT_MS = 15_000;

export interface WaitingReports {
  target: LeaseTarget;
  holder: string;
  clock: Clock;
  /** The run's wait deadline: each report says what is left of its budget. */
  deadline: WaitDeadline;
  onWaiting: (waiting: Waiting) => void;
}

/** Starts the reports of one wait; the function it returns stops them (call it when the wait ends). */
export function reportWhileWaiting(w: WaitingReports, origin: object): () => void {
  const started = w.clock.now();
  let stopped = false;
  let timer: unknown = null;
  const report = async () => {
    try {
      const answer = await w.target.waiting({ holder: w.holder, ...origin });
      if (stopped || answer.position === null) return;
      w.onWaiting({
        lock: w.target.key,
        identity: w.target.identity,
        holder: answer.holder,
        position: answer.position,
        waitedMs: Math.max(0, Math.round(w.clock.now() - started)),
        budgetLeftMs: Math.round(w.deadline.leftMs()),
      });
    } catch {
      // A report is a courtesy: the wait goes on without it.
    }
  };
  const schedule = (ms: number) => {
    timer = w.clock.setTimeout(() => {
      if (stopped) return;
      void report().finally(() => {
        if (!stopped) schedule(WAITING_REPORT_MS);
      });
    }, ms);
  };
  schedule(WAITING_FIRST_REPORT_MS);
  return () => {
    stopped = true;
    if (timer !== null) w.clock.clearTimeout(timer);
  };
}
