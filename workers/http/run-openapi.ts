/**
 * What the OpenAPI document says a run route answers (docs/api.md, "A run's answer"): the JSON result or
 * the NDJSON stream that ./run-response.ts sends, its Server-Timing header, and the statuses of a
 * failed run (./run-status.ts) beside the problems that refuse a run.
 */
import type { ErrorCode } from "../../shared/errors";
import { runResultSchema } from "../../shared/schemas/run";
import { runEventSchema } from "../../shared/schemas/run-event";
import { AUTH_CODES, BODY_CODES, problemResponses, withOpenApi } from "./openapi-problems";
import { NDJSON } from "./run-response";
import { FAILED_RUN_STATUS } from "./run-status";

const serverTimingHeader = {
  "Server-Timing": {
    description:
      "Where the run's time went, in ms: `auth`, `scope-lock`, `parent-lock`, `provider`, `storage`, " +
      "`total` (the result's `timings`). A streamed answer's header holds only `auth`; its final `result` " +
      "event carries the full timings",
    schema: {
      type: "string" as const,
      example:
        "auth;dur=2, scope-lock;dur=4, parent-lock;dur=3, provider;dur=41, storage;dur=12, total;dur=63",
    },
  },
};

const runResult = withOpenApi(runResultSchema, "RunResult");

/**
 * What a run answers: 200 for a succeeded run (or any streamed one); a failed run (JSON mode) under
 * its cause's status (workers/http/run-status.ts), beside the problems that refuse a run before it
 * starts (docs/design.md, "Errors").
 */
export function runResponses(...codes: ErrorCode[]) {
  const problems = problemResponses(
    ...BODY_CODES,
    "NOT_FOUND",
    "LOCK_HELD",
    "LOCK_UNAVAILABLE",
    "CONCURRENT_MODIFICATION",
    "RATE_LIMITED",
    ...AUTH_CODES,
    ...codes,
  );
  for (const status of new Set(Object.values(FAILED_RUN_STATUS))) {
    const causes = Object.entries(FAILED_RUN_STATUS).filter(([, s]) => s === status);
    const failed = `The run executed and failed (JSON mode): the RunResult, for a run whose error is ${causes.map(([code]) => code).join(", ")}`;
    const problem = problems[status];
    problems[status] = {
      description: problem ? `${problem.description}. Or: ${failed}` : failed,
      // A run failed by a held lock sends Retry-After too (workers/http/run-response.ts).
      ...(problem?.headers ? { headers: problem.headers } : {}),
      content: { ...(problem?.content ?? {}), "application/json": { schema: runResult } },
    };
  }
  return {
    200: {
      description:
        "The run executed and succeeded. With `Accept: application/x-ndjson`, one RunEvent per line as it " +
        "happens, the result last: a streamed run always answers 200, its final `result` event says how it ended",
      headers: serverTimingHeader,
      content: {
        "application/json": { schema: runResult },
        [NDJSON]: { schema: withOpenApi(runEventSchema, "RunEvent") },
      },
    },
    ...problems,
  };
}
