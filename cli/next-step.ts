/**
 * What to do about each problem code (docs/design.md, "Errors"), in one line for a person reading
 * a failed CI step: the Action's error annotation says it after the code and the message. One
 * entry per code the service answers, plus the CLI's own two; the compiler refuses a missing one.
 */
import type { ApiErrorCode } from "./client";

const NEXT_STEP: Record<ApiErrorCode, string> = {
  VALIDATION:
    "fix the plan or the vars the step passes (the message names each line and value); `npx sponson plan check <plan> --var …` finds every problem offline",
  EMPTY_PLAN:
    "the plan has no lines but the scope owns entries: fix the plan, or send allowEmpty (CLI --allow-empty) to remove them all; `sponson destroy` removes everything",
  PAYLOAD_TOO_LARGE: "the request is over 1 MiB: split the plan",
  UNAUTHENTICATED:
    "the token was refused: give the job `permissions: id-token: write`, make the `audience` input equal the service's SPONSON_AUDIENCE, or pass a valid service token",
  FORBIDDEN:
    "the token's rights or the service's write policy refuse it (the message names the rule): act on a scope this job may, or ask an operator to allow it in SPONSON_POLICY",
  NOT_FOUND: "check the environment, the scope and the run id the step names",
  LOCK_HELD:
    "another run holds the lock (the message says who and until when): set `wait: true` (CLI --wait) to queue behind it, or ask an admin to `sponson unhold`/`sponson unlock` it",
  LOCK_LOST:
    "the run lost its lease before a write (the message says if an admin force-released it, and why): run the job again; what it may have written stays recorded for recovery",
  LOCK_UNAVAILABLE: "a lock object was overloaded and nothing was written: run the job again",
  AUDIT_UNAVAILABLE: "the audit trail could not be written and nothing was done: try again",
  BUDGET_EXHAUSTED:
    "the provider's budget for this tenant allowed the call only after the run's deadline and nothing was sent: run the job again after the time the answer gives, or raise waitTimeoutSeconds",
  CONCURRENT_MODIFICATION:
    "the scope or its receipt changed while the run waited (a close, another run): run the job again",
  RATE_LIMITED:
    "this caller, or its repository's runs at one lock, went past a limit (the message names it): run the job again later, after the time the answer gives if it gives one",
  PROVIDER_ERROR:
    "the provider refused or failed (the message quotes it): retry later, or fix the connection's credentials or settings in the service's configuration",
  INTERNAL:
    "the service failed or is misconfigured: tell its operators, with the run id (the service logged the cause)",
  CONNECTION_NOT_BOUND:
    "the plan writes through a connection that does not name this repository (the message names each line): use one of this repository's connections, or ask an operator to name the repository in the connection's `repositories`",
  LIST_FULL:
    "the provider list is full: destroy closed or stale scopes (`sponson destroy --scope …`, the message lists them) or raise the cap",
  QUOTA_EXCEEDED:
    "the scope or its repository holds its share of a provider list (the message names the list and the share): put fewer lines on that list, destroy scopes that are done, or ask an operator to raise maxEntriesPerScope/maxEntriesPerRepository",
  NETWORK: "check the `url` input (SPONSON_URL) and that the service is reachable from the runner",
  BAD_RESPONSE: "the URL answered something that is not Sponson Edge: check the `url` input (SPONSON_URL)",
};

export function nextStep(code: string): string {
  return (NEXT_STEP as Record<string, string>)[code] ?? "read the step's log above for the cause";
}
