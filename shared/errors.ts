/**
 * Domain errors are values with stable codes (docs/design.md, "Errors"). One closed union of codes, one
 * exhaustive table code → HTTP status, title and whether a retry can succeed.
 *
 * `retriable` answers one question: can sending the same request again, unchanged, succeed? CI
 * that honours it loops until its timeout when it is wrongly true. The table holds each code's
 * answer for its usual cause; an error whose cause is known to be permanent where the code's
 * usually is not (a closed scope, a provider's own 4xx refusal) says so on the instance.
 */
export const ERROR_CODES = [
  "VALIDATION",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "LOCK_HELD",
  "LOCK_LOST",
  "LOCK_UNAVAILABLE",
  "CONCURRENT_MODIFICATION",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED",
  "PROVIDER_ERROR",
  "INTERNAL",
  "EMPTY_PLAN",
  "LIST_FULL",
  "QUOTA_EXCEEDED",
  "AUDIT_UNAVAILABLE",
  "CONNECTION_NOT_BOUND",
  "BUDGET_EXHAUSTED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

interface CodeInfo {
  status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503;
  title: string;
  retriable: boolean;
}

export const ERROR_TABLE: Record<ErrorCode, CodeInfo> = {
  VALIDATION: { status: 400, title: "The request is not valid", retriable: false },
  UNAUTHENTICATED: { status: 401, title: "Authentication is required", retriable: false },
  FORBIDDEN: { status: 403, title: "Not allowed", retriable: false },
  NOT_FOUND: { status: 404, title: "Not found", retriable: false },
  LOCK_HELD: { status: 409, title: "The lock is held by another run", retriable: true },
  LOCK_LOST: { status: 409, title: "The lease was lost before the write", retriable: true },
  // The lock object stayed overloaded through every ask: nothing was written, a later ask can pass.
  LOCK_UNAVAILABLE: { status: 503, title: "The lock is overloaded for now", retriable: true },
  // Usually another writer got there first and a fresh attempt re-reads; a closed scope overrides.
  // The title fits every cause; whether to retry is `retriable`'s to say.
  CONCURRENT_MODIFICATION: {
    status: 409,
    title: "The scope or object is not in the state the request needs",
    retriable: true,
  },
  PAYLOAD_TOO_LARGE: { status: 413, title: "The request body is too large", retriable: false },
  RATE_LIMITED: { status: 429, title: "Too many requests", retriable: true },
  // Usually an outage or throttling the adapter's own retries outlasted; a provider's 4xx overrides.
  PROVIDER_ERROR: { status: 502, title: "The provider refused or failed", retriable: true },
  INTERNAL: { status: 500, title: "Internal error", retriable: false },
  // An apply with no lines would remove every entry the scope owns: `allowEmpty: true`, or destroy.
  EMPTY_PLAN: { status: 400, title: "The plan has no lines and the scope owns entries", retriable: false },
  // Refused under the lease before any provider write: the same request fails until entries are removed.
  LIST_FULL: { status: 409, title: "The provider's list is at its cap", retriable: false },
  // A scope's or repository's share of a list (docs/design.md, "A share of each list"): refused from
  // the plan before any lock, or under the lease with the cap; the same request fails until the
  // share holds fewer entries, as LIST_FULL does, so the same 409 and not retriable.
  QUOTA_EXCEEDED: {
    status: 409,
    title: "The scope's or repository's share of a list is used up",
    retriable: false,
  },
  // A destructive admin action's intent could not be written to the audit trail: nothing was done.
  AUDIT_UNAVAILABLE: { status: 503, title: "The audit trail cannot be written for now", retriable: true },
  // The connection does not name the caller's repository: only the operator's configuration can change that.
  CONNECTION_NOT_BOUND: {
    status: 403,
    title: "The connection does not take writes from this repository",
    retriable: false,
  },
  // A provider tenant's budget allows the call only after the lease's or the run's deadline
  // (docs/design.md, "Write budgets"): it was not sent; once the budget refills it passes.
  BUDGET_EXHAUSTED: {
    status: 503,
    title: "The provider's budget allows the call only later",
    retriable: true,
  },
};

/** The serialisable form of an error: what crosses RPC, receipts and responses. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
  detail?: Record<string, unknown>;
  /** Present only where this error's answer differs from its code's in ERROR_TABLE. */
  retriable?: boolean;
}

export interface SponsonErrorOptions {
  /** Overrides the code's `retriable` for this error: only for a cause known to differ from it. */
  retriable?: boolean;
  /** The error this one stands for (kept in the process; the wire carries `detail` alone). */
  cause?: unknown;
}

/**
 * The facts in an error's detail that steer what the code does next, typed (the detail is their
 * one home on the wire, so an error rebuilt from its ErrorInfo keeps them):
 * - `outcome`: "unknown" for a write that may have landed whatever this answer says (a provider
 *   error's; docs/design.md, "Fencing around a write").
 * - `providerStatus`: the HTTP status a provider answered with (null: none, or no answer).
 * - `untaken`: a lock's refusal vouching that nobody took a waiter's changes.
 * - `sent`: false where a request surely never left (a removal refused before it was sent).
 */
export interface ErrorFacts {
  outcome: "unknown" | undefined;
  providerStatus: number | null;
  untaken: boolean;
  sent: boolean | undefined;
}

/** The facts of an error's detail (ErrorFacts), read from a SponsonError, an ErrorInfo or anything. */
export function factsOf(err: unknown): ErrorFacts {
  const detail = typeof err === "object" && err !== null ? (err as ErrorInfo).detail : undefined;
  return {
    outcome: detail?.outcome === "unknown" ? "unknown" : undefined,
    providerStatus: typeof detail?.status === "number" ? detail.status : null,
    untaken: detail?.untaken === true,
    sent: typeof detail?.sent === "boolean" ? detail.sent : undefined,
  };
}

export class SponsonError extends Error {
  readonly code: ErrorCode;
  /** What crosses the wire with the code; the facts that steer control flow are typed below. */
  readonly detail: Record<string, unknown> | undefined;
  readonly #retriable: boolean | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    detail?: Record<string, unknown>,
    options: SponsonErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SponsonError";
    this.code = code;
    this.detail = detail;
    const fallback = ERROR_TABLE[code].retriable;
    this.#retriable =
      options.retriable === undefined || options.retriable === fallback ? undefined : options.retriable;
  }

  // Getters, not fields: the error's own properties (what a structured clone or a log carries)
  // stay the code and the detail.
  get outcome(): ErrorFacts["outcome"] {
    return factsOf(this).outcome;
  }

  get providerStatus(): ErrorFacts["providerStatus"] {
    return factsOf(this).providerStatus;
  }

  get untaken(): ErrorFacts["untaken"] {
    return factsOf(this).untaken;
  }

  /** Whether the same request, sent again unchanged, can succeed. */
  get retriable(): boolean {
    return this.#retriable ?? ERROR_TABLE[this.code].retriable;
  }

  toInfo(): ErrorInfo {
    const info: ErrorInfo = { code: this.code, message: this.message };
    if (this.detail !== undefined) info.detail = this.detail;
    if (this.#retriable !== undefined) info.retriable = this.#retriable;
    return info;
  }

  static fromInfo(info: ErrorInfo): SponsonError {
    return new SponsonError(
      info.code,
      info.message,
      info.detail,
      info.retriable === undefined ? {} : { retriable: info.retriable },
    );
  }
}

export function isSponsonError(err: unknown): err is SponsonError {
  return err instanceof SponsonError;
}

/** Expected outcomes as values: RPC across a Durable Object boundary loses error classes. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: ErrorCode, message: string, detail?: Record<string, unknown>): Result<never> => ({
  ok: false,
  error: detail === undefined ? { code, message } : { code, message, detail },
});

/** Unwraps a result, turning a failure back into a thrown SponsonError. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw SponsonError.fromInfo(result.error);
}
