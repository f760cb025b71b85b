/**
 * A typed client for the HTTP API (docs/api.md) over fetch. Request and response types are the
 * shared zod schemas' (shared/schemas/*), and every response is parsed with them, so the CLI and
 * the Worker cannot drift apart silently. A refused request becomes an `ApiError` carrying the
 * problem's stable `code`.
 */
import type { z } from "zod";
import { ERROR_TABLE, type ErrorCode } from "../shared/errors";
import {
  type AdoptionResult,
  type adoptionBodySchema,
  adoptionResultSchema,
} from "../shared/schemas/adoption";
import { type LockView as LockState, lockStateSchema } from "../shared/schemas/lock";
import { PROBLEM_CONTENT_TYPE, type ProblemBody } from "../shared/schemas/problem";
import { type ReceiptView as Receipt, receiptViewSchema } from "../shared/schemas/receipt";
import type {
  applyBodySchema,
  destroyBodySchema,
  previewBodySchema,
  rollbackBodySchema,
} from "../shared/schemas/requests";
import {
  type ForceReleaseResult,
  forceReleaseResultSchema,
  type HoldResult,
  healthSchema,
  holdResultSchema,
  lockListSchema,
  type ScopeSummary,
  scopeListSchema,
} from "../shared/schemas/responses";
import { type RunResult, runResultSchema } from "../shared/schemas/run";
import type { RunEventWire } from "../shared/schemas/run-event";

import { failedRunOf, parseWith, problemError, readJson, readRunStream, scopePath } from "./responses";
import { isLoopbackUrl } from "./service-url";

export const NDJSON = "application/x-ndjson";

export type ApplyBody = z.input<typeof applyBodySchema>;
export type PreviewBody = z.input<typeof previewBodySchema>;
export type DestroyBody = z.input<typeof destroyBodySchema>;
export type RollbackBody = z.input<typeof rollbackBodySchema>;
export type AdoptionBody = z.input<typeof adoptionBodySchema>;
export type RunAction = "apply" | "preview" | "destroy" | "rollback";
export type RunBody<A extends RunAction> = {
  apply: ApplyBody;
  preview: PreviewBody;
  destroy: DestroyBody;
  rollback: RollbackBody;
}[A];
export type {
  AdoptionResult,
  ForceReleaseResult,
  HoldResult,
  LockState,
  Receipt,
  RunEventWire as RunEvent,
  RunResult,
  ScopeSummary,
};

/** The service's codes, plus two for failures that never reached (or came back from) it. */
export type ApiErrorCode = ErrorCode | "NETWORK" | "BAD_RESPONSE";

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** The problem as the service sent it, when it sent one. */
  readonly problem: ProblemBody | undefined;
  /**
   * Whether the same request, sent again, can succeed: the service's word (the problem's or the
   * stream's error event's `retriable`), else its code's default; a request that never reached
   * the service can be sent again, an answer the CLI cannot read cannot.
   */
  readonly retriable: boolean;
  /** The service's `Retry-After`, in milliseconds (0 when it sent none). */
  readonly retryAfterMs: number;

  constructor(
    code: ApiErrorCode,
    message: string,
    status: number,
    problem?: ProblemBody,
    extra: { retriable?: boolean; retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.problem = problem;
    this.retriable =
      extra.retriable ??
      problem?.retriable ??
      (code === "NETWORK" ? true : code === "BAD_RESPONSE" ? false : ERROR_TABLE[code].retriable);
    this.retryAfterMs = extra.retryAfterMs ?? 0;
  }
}

export interface ClientOptions {
  /** The service's base URL, e.g. https://sponson.example.com (a path prefix is kept). */
  url: string;
  token?: string;
  fetch?: typeof fetch;
  userAgent?: string;
  /** `owner/name` sent as `?repository=` on every scope request; unset: the service decides. */
  repository?: string;
}

export class SponsonClient {
  readonly #base: string;
  readonly #token: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #userAgent: string;
  readonly #repository: string | undefined;

  constructor(options: ClientOptions) {
    this.#repository = options.repository;
    this.#base = options.url.replace(/\/+$/, "");
    this.#token = options.token;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#userAgent = options.userAgent ?? "sponson-cli";
  }

  health() {
    return this.#json("GET", "/healthz", healthSchema);
  }

  /**
   * Runs apply, preview, destroy or rollback. With `onEvent` the run streams (NDJSON) and each
   * event is handed over as it arrives; either way the final result is returned.
   */
  async run<A extends RunAction>(
    action: A,
    environment: string,
    scope: string,
    body: RunBody<A>,
    onEvent?: (event: RunEventWire) => void,
  ): Promise<RunResult> {
    const path = `${scopePath(environment, scope)}/${action}${this.#repositoryQuery("?")}`;
    // A failed run answers a non-2xx with the run in the body (docs/api.md, "A run's answer").
    const res = await this.#send("POST", path, body, onEvent ? NDJSON : "application/json", failedRunOf);
    if (onEvent && (res.headers.get("content-type") ?? "").includes(NDJSON)) {
      return readRunStream(res, path, onEvent);
    }
    // Asked for JSON, or a service that ignores Accept: the run as one document.
    return parseWith(runResultSchema, await readJson(res), path);
  }

  ledger(environment: string, scope: string): Promise<Receipt> {
    return this.#json(
      "GET",
      `${scopePath(environment, scope)}/ledger${this.#repositoryQuery("?")}`,
      receiptViewSchema,
    );
  }

  async scopes(environment?: string): Promise<ScopeSummary[]> {
    const query = environment ? `?environment=${encodeURIComponent(environment)}` : "";
    const path = `/v1/scopes${query}${this.#repositoryQuery(query ? "&" : "?")}`;
    return (await this.#json("GET", path, scopeListSchema)).scopes;
  }

  #repositoryQuery(separator: "?" | "&"): string {
    return this.#repository === undefined
      ? ""
      : `${separator}repository=${encodeURIComponent(this.#repository)}`;
  }

  async locks(): Promise<LockState[]> {
    return (await this.#json("GET", "/v1/locks", lockListSchema)).locks;
  }

  lock(key: string): Promise<LockState> {
    return this.#json("GET", `/v1/locks/${encodeURIComponent(key)}`, lockStateSchema);
  }

  forceRelease(key: string, reason: string): Promise<ForceReleaseResult> {
    return this.#json("DELETE", `/v1/locks/${encodeURIComponent(key)}`, forceReleaseResultSchema, { reason });
  }

  hold(key: string, reason: string, ttlSeconds: number): Promise<HoldResult> {
    return this.#json("POST", `/v1/locks/${encodeURIComponent(key)}/hold`, holdResultSchema, {
      reason,
      ttlSeconds,
    });
  }

  unhold(key: string): Promise<HoldResult> {
    return this.#json("DELETE", `/v1/locks/${encodeURIComponent(key)}/hold`, holdResultSchema);
  }

  /** POST /v1/adopt: a dry run unless `body.apply` (docs/cli.md, "adopt"). */
  adopt(body: AdoptionBody): Promise<AdoptionResult> {
    return this.#json("POST", `/v1/adopt${this.#repositoryQuery("?")}`, adoptionResultSchema, body);
  }

  async #json<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const res = await this.#send(method, path, body, "application/json");
    return parseWith(schema, await readJson(res), path);
  }

  /** Sends the request; a non-2xx answer is thrown as an ApiError, unless `keep` takes it. */
  async #send(
    method: string,
    path: string,
    body: unknown,
    accept: string,
    keep?: (res: Response) => Promise<boolean>,
  ): Promise<Response> {
    const headers: Record<string, string> = {
      accept: `${accept}, ${PROBLEM_CONTENT_TYPE}`,
      "user-agent": this.#userAgent,
    };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw networkError(this.#base, err);
    }
    if (!res.ok && !(await keep?.(res))) throw await problemError(res);
    return res;
  }
}

/**
 * A request that reached nothing. Retriable, except a refused connection on loopback: nothing
 * listens on that port of this machine (the local instance is not started, or listens on another
 * port), and no retry will change that, so the answer comes at once and says what to do.
 */
function networkError(base: string, err: unknown): ApiError {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const text = cause instanceof Error ? cause.message : String(cause);
  if ((cause as { code?: unknown } | null)?.code === "ECONNREFUSED" && isLoopbackUrl(base)) {
    return new ApiError(
      "NETWORK",
      `nothing listens at ${base} (connection refused): start the local instance with \`npm start\`, ` +
        "or set SPONSON_URL (or --url) to the service's URL",
      0,
      undefined,
      { retriable: false },
    );
  }
  return new ApiError("NETWORK", `cannot reach ${base}: ${text}`, 0);
}
