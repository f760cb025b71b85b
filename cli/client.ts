/**
 * A typed client for the HTTP API (README, "HTTP API (v1)") over fetch. Request and response types are the
 * shared zod schemas' (shared/schemas/*), and every response is parsed with them, so the CLI and
 * the Worker cannot drift apart silently. A refused request becomes an `ApiError` carrying the
 * problem's stable `code`.
 */
import type { z } from "zod";
import { ERROR_CODES, ERROR_TABLE, type ErrorCode } from "../shared/errors";
import { type LockState, lockStateSchema } from "../shared/schemas/lock";
import { PROBLEM_CONTENT_TYPE, type ProblemBody, problemSchema } from "../shared/schemas/problem";
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
import { type RunEventWire, runEventSchema } from "../shared/schemas/run-event";

export const NDJSON = "application/x-ndjson";

export type ApplyBody = z.input<typeof applyBodySchema>;
export type PreviewBody = z.input<typeof previewBodySchema>;
export type DestroyBody = z.input<typeof destroyBodySchema>;
export type RollbackBody = z.input<typeof rollbackBodySchema>;
export type RunAction = "apply" | "preview" | "destroy" | "rollback";
export type RunBody<A extends RunAction> = {
  apply: ApplyBody;
  preview: PreviewBody;
  destroy: DestroyBody;
  rollback: RollbackBody;
}[A];
export type {
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
    // A failed run answers a non-2xx with the run in the body (README, "Status codes of a run").
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
      const cause =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : "";
      throw new ApiError("NETWORK", `cannot reach ${this.#base}: ${cause || String(err)}`, 0);
    }
    if (!res.ok && !(await keep?.(res))) throw await problemError(res);
    return res;
  }
}

/** A non-2xx JSON answer (not a problem) whose body is a failed run: the run, not a refusal. */
async function failedRunOf(res: Response): Promise<boolean> {
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("application/json")) return false;
  try {
    const parsed = runResultSchema.safeParse(await res.clone().json());
    return parsed.success && parsed.data.run.status === "failed";
  } catch {
    return false;
  }
}

function scopePath(environment: string, scope: string): string {
  return `/v1/scopes/${encodeURIComponent(environment)}/${encodeURIComponent(scope)}`;
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(
      "BAD_RESPONSE",
      `the service answered ${res.status} with a body that is not JSON`,
      res.status,
    );
  }
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, path: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "";
  throw new ApiError("BAD_RESPONSE", `unexpected response from ${path} (${where})`, 200);
}

/** The code a status stands for when the body is not a problem we can read. */
function codeOfStatus(status: number): ErrorCode {
  return ERROR_CODES.find((code) => ERROR_TABLE[code].status === status) ?? "INTERNAL";
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP date; anything else is no advice. */
function retryAfter(header: string | null): number {
  if (header === null) return 0;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? 0 : Math.max(0, at - Date.now());
}

async function problemError(res: Response): Promise<ApiError> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = problemSchema.safeParse(json);
  const retryAfterMs = retryAfter(res.headers.get("retry-after"));
  if (parsed.success) {
    return new ApiError(parsed.data.code, parsed.data.detail, res.status, parsed.data, { retryAfterMs });
  }
  return new ApiError(
    codeOfStatus(res.status),
    `the service answered ${res.status} ${res.statusText}`.trim(),
    res.status,
    undefined,
    { retryAfterMs },
  );
}

/** Reads NDJSON events as they arrive; the `result` event ends the run, an `error` event fails it. */
async function readRunStream(
  res: Response,
  path: string,
  onEvent: (event: RunEventWire) => void,
): Promise<RunResult> {
  if (!res.body) throw new ApiError("BAD_RESPONSE", `empty stream from ${path}`, res.status);
  const decoder = new TextDecoder();
  let buffered = "";
  let result: RunResult | undefined;
  const handle = (line: string) => {
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new ApiError("BAD_RESPONSE", `a stream line from ${path} is not JSON`, res.status);
    }
    const event = parseWith(runEventSchema, json, path);
    onEvent(event);
    if (event.type === "result") result = event.result;
    if (event.type === "error") {
      const code = (ERROR_CODES as readonly string[]).includes(event.error.code)
        ? (event.error.code as ErrorCode)
        : "INTERNAL";
      const { retriable } = event.error;
      throw new ApiError(code, event.error.message, res.status, undefined, {
        ...(retriable === undefined ? {} : { retriable }),
      });
    }
  };
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      handle(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
  }
  handle(buffered + decoder.decode());
  if (!result)
    throw new ApiError("BAD_RESPONSE", `the stream from ${path} ended without a result`, res.status);
  return result;
}
