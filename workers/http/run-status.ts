/**
 * The HTTP status of a run's JSON answer (docs/design.md, "Run outcomes and status codes"): a client
 * that checks only the status must never take a failed run for success. A succeeded run is 200; a
 * failed one answers by its cause — the run's error, else its first failed line's — with the run
 * in the body unchanged. A streamed run's status leaves before the run ends: it stays 200 and its
 * final `result` event says how it ended.
 */
import type { ErrorCode } from "../../shared/errors";
import type { RunResult } from "../../shared/schemas/run";

type RunError = NonNullable<RunResult["run"]["error"]>;

export type FailedRunStatus = 409 | 422 | 429 | 500 | 502 | 503;

/**
 * A failed run's status per cause. 409: another writer or lock holder was in the way, a retry
 * may succeed; 502: the provider refused or failed; 422: the request was accepted but its content
 * was refused while running (a policy, a line, a record the service cannot act on); 500: the
 * service itself. Codes that only refuse a request before any run still have a row (exhaustive).
 */
export const FAILED_RUN_STATUS: Record<ErrorCode, FailedRunStatus> = {
  LOCK_HELD: 409,
  LOCK_LOST: 409,
  LOCK_UNAVAILABLE: 503,
  CONCURRENT_MODIFICATION: 409,
  PROVIDER_ERROR: 502,
  RATE_LIMITED: 429,
  VALIDATION: 422,
  FORBIDDEN: 422,
  NOT_FOUND: 422,
  PAYLOAD_TOO_LARGE: 422,
  UNAUTHENTICATED: 422,
  EMPTY_PLAN: 422,
  LIST_FULL: 409,
  QUOTA_EXCEEDED: 409,
  AUDIT_UNAVAILABLE: 503,
  BUDGET_EXHAUSTED: 503,
  CONNECTION_NOT_BOUND: 422,
  INTERNAL: 500,
};

/** What failed a run: its own error, else its first failed line's; none for a succeeded run. */
export function runCause(result: RunResult): RunError | undefined {
  if (result.run.status === "succeeded") return undefined;
  return result.run.error ?? result.lines.find((l) => l.result === "failed" && l.error)?.error;
}

/** 200 for a succeeded run; a failed run's status by its cause, 500 when it names none. */
export function runStatus(result: RunResult): 200 | FailedRunStatus {
  if (result.run.status === "succeeded") return 200;
  const code = runCause(result)?.code;
  // A code this service does not know (a receipt's, from a newer version) is still no 2xx.
  return code !== undefined && Object.hasOwn(FAILED_RUN_STATUS, code)
    ? FAILED_RUN_STATUS[code as ErrorCode]
    : 500;
}
