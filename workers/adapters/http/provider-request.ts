/**
 * One provider HTTP call with bounded retries. 429 and 5xx (and network errors) are retried with
 * exponential backoff; a 429 waits as long as the provider's reset header asks (each provider
 * says how to read it). Waits go through `ctx.clock.sleep`, so tests decide how time passes.
 * Final failures become PROVIDER_ERROR with the provider's own message, secrets redacted.
 * A conditional write (`precondition`) is retried too, the precondition keeping the retry from
 * landing twice; but once an attempt went unanswered (or failed 5xx) it may have landed, so a
 * precondition refusal after it may be refusing that landing: an unknown outcome, never a
 * "nothing was written" (docs/design.md, "Fencing around a write"). The same holds for any write's
 * final failure after such an attempt (a refusal, a 5xx, no answer), and a write that succeeds after
 * one tells the context's `onUnansweredWrite`: that attempt may still land.
 * With a budget (`ctx.budget`, ./provider-budget.ts) each attempt the provider counts first takes
 * a token of its tenant's budget, and a 429 drains that budget: the retry waits in it, as every
 * other isolate's calls to the tenant do, instead of in a backoff of its own.
 */
import type { z } from "zod";
import type { Clock } from "../../../shared/clock";
import { isSponsonError } from "../../../shared/errors";
import { PROVIDER_REQUEST_TIMEOUT_MS } from "../../../shared/lease-defaults";
import type { SecretRegistry } from "../../../shared/secrets";
import type { FederationAssertions } from "../../keys/federation";
import { budgetFor, drainAfter, type RequestBudget } from "./provider-budget";
import { LeaseLostOnRead, providerError } from "./provider-error";
import type { SharedTokens } from "./shared-tokens";
import type { IsolateTokenCache } from "./token-cache";

/** What the helper needs from an OpContext. */
export interface HttpContext {
  fetch: typeof fetch;
  clock: Clock;
  secrets: SecretRegistry;
  /** The fleet's token objects for this connection (./token-cache.ts); absent: isolate cache only. */
  tokens?: SharedTokens;
  /** false: no isolate token cache; an instance: that one instead (tests, the bench). */
  isolateCache?: boolean | IsolateTokenCache;
  /** Under a lease, its deadline: a wait for another isolate's token ends there (./token-cache.ts). */
  deadline?: () => number;
  /** A federated connection's assertions (workers/keys/federation.ts); absent for secret credentials. */
  federation?: FederationAssertions;
  /**
   * Under a fence (workers/engine/write/fence.ts): told of each attempt of a write that may have
   * landed without the provider saying so (no answer, a timeout, a broken connection, a 5xx, still
   * in flight at the lease deadline), whatever a later attempt is answered. Never of a read.
   */
  onUnansweredWrite?: () => void;
  /**
   * Under a fence: told of each write attempt the provider accepted (a 2xx, or a status the caller
   * accepts), so the engine knows when nothing of a change that failed can be on the provider.
   */
  onWriteAccepted?: () => void;
  /** The connection's provider budget (./provider-budget.ts); absent: calls go as they come. */
  budget?: RequestBudget;
}

/** Per provider: how it says "wait" and how its error bodies look. */
export interface ProviderHttpSpec {
  /** Used in messages: "<provider>: <status> <message>". */
  readonly provider: string;
  /** How long a 429 asks us to wait, in ms from `nowMs`; undefined when the response gives no hint. */
  retryAfterMs(response: Response, nowMs: number): number | undefined;
  /** The provider's message and error code from an error body (parsed JSON, else the raw text). */
  describeError(body: unknown): { message?: string | undefined; code?: string | undefined };
  /** A throttling answer sent with another status than 429 (Cognito: 400 TooManyRequestsException). */
  isThrottled?(status: number, body: unknown): boolean;
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Backoff without a provider hint: base, 2×base, 4×base … capped at maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A wait that would take the total past this is not made: the call fails instead. */
  maxTotalWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxTotalWaitMs: 30_000,
};

export interface ProviderRequest {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as is (form or XML bodies); `headers` carry its content-type. Ignored when `json` is set. */
  body?: string;
  /**
   * The body made anew for each attempt, in place of `json`/`body`: a one-use client assertion
   * resent after an answer was lost would be refused as used (docs/design.md, "Federated connections").
   */
  eachAttempt?: () => Promise<Pick<ProviderRequest, "json" | "body">>;
  /**
   * The status a refused precondition answers (GCS: 412), for a write that carries one. After an
   * attempt that may have landed, that status throws PROVIDER_ERROR with outcome "unknown"
   * instead of being returned: the refusal may be of this write's own earlier landing.
   */
  precondition?: number;
  /**
   * The request changes nothing at the provider (a token exchange, a read sent as a POST). Every
   * other method than GET is taken as a write: its final refusal after an attempt that may have
   * landed says nothing of that attempt (outcome "unknown").
   */
  read?: true;
  /** Non-2xx statuses the caller handles itself (e.g. "not found" meaning "empty"). */
  accept?: readonly number[];
  retry?: Partial<RetryPolicy>;
}

type Outcome = { response: Response } | { error: string };

function isRetriable(status: number): boolean {
  return status === 429 || status >= 500;
}

function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}

async function send(ctx: HttpContext, req: ProviderRequest): Promise<Outcome> {
  const headers: Record<string, string> = { accept: "application/json", ...req.headers };
  let body = req.body;
  if (req.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(req.json);
  }
  try {
    // Every request is bounded in time (under a lease, the engine's transport bounds it by the
    // lease deadline too: workers/engine/write/fenced-fetch.ts); a timeout is a network error, retried.
    const signal = AbortSignal.timeout(PROVIDER_REQUEST_TIMEOUT_MS);
    return { response: await ctx.fetch(req.url, { method: req.method, headers, body, signal }) };
  } catch (err) {
    // The engine's fenced transport refuses a write once a lease is lost: that is a verdict, not
    // a network hiccup, so it is never retried or turned into PROVIDER_ERROR.
    if (isSponsonError(err)) throw err;
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sends `req`, retrying as the policy allows; resolves with a 2xx (or accepted) response. */
export async function providerRequest(
  ctx: HttpContext,
  spec: ProviderHttpSpec,
  req: ProviderRequest,
): Promise<Response> {
  const policy = { ...DEFAULT_RETRY, ...req.retry };
  let waitedMs = 0;
  // A write's refusal after an attempt that may have landed says nothing of that attempt: the
  // attempt may still land (an unconditional write) or be what the refusal refuses (a 412). A token
  // exchange or a read (Cognito's are POSTs too) keeps its plain answer.
  const write = req.method !== "GET" && req.read !== true;
  let mayHaveLanded = false;
  // An attempt of a write that may have landed is told at once: the caller hears of it even when a
  // later attempt succeeds (docs/design.md, "Fencing around a write"). A read's never is.
  const unanswered = () => {
    mayHaveLanded = true;
    if (write) ctx.onUnansweredWrite?.();
  };
  for (let attempt = 1; ; attempt += 1) {
    const landedBefore = mayHaveLanded;
    await budgetFor(ctx, req, write && landedBefore);
    let outcome: Outcome;
    try {
      outcome = await send(ctx, req.eachAttempt ? { ...req, ...(await req.eachAttempt()) } : req);
    } catch (err) {
      // A request that changes nothing lost with the lease is a lost lease, whatever the transport
      // says of a request in flight: nothing it sent can land.
      if (!write) throw readLost(err, req);
      // Still unanswered at the lease deadline (fenced-fetch.ts): sent, so it may land.
      if (inFlightAtDeadline(err)) unanswered();
      throw err;
    }
    let waitMs: number;
    if ("response" in outcome) {
      const { response } = outcome;
      if (landedBefore && response.status === req.precondition) {
        await response.body?.cancel();
        throw providerError(ctx.secrets, {
          provider: spec.provider,
          status: response.status,
          message: `precondition failed after an attempt that got no answer: that attempt may have landed (outcome unknown)`,
          attempts: attempt,
          outcome: "unknown",
        });
      }
      if (response.ok || req.accept?.includes(response.status)) {
        if (write) ctx.onWriteAccepted?.();
        return response;
      }
      const body = await readBody(response);
      const throttled = response.status === 429 || spec.isThrottled?.(response.status, body) === true;
      const hint = throttled ? spec.retryAfterMs(response, ctx.clock.now()) : undefined;
      // A counted call's 429 drains its tenant's budget until the reset: the next attempt waits
      // there (before it is sent), with every other caller of that tenant.
      const drained = throttled && (await drainAfter(ctx, req, { response, hintMs: hint }));
      waitMs = drained ? 0 : hint !== undefined && hint > 0 ? Math.ceil(hint) : backoffMs(policy, attempt);
      const final =
        !(throttled || isRetriable(response.status)) ||
        attempt >= policy.maxAttempts ||
        waitedMs + waitMs > policy.maxTotalWaitMs;
      if (response.status >= 500) unanswered();
      if (final) {
        const described = spec.describeError(body);
        throw providerError(ctx.secrets, {
          provider: spec.provider,
          status: response.status,
          message: described.message ?? (response.statusText || "no message"),
          providerCode: described.code,
          attempts: attempt,
          ...(throttled ? { retriable: true } : {}),
          // A refusal (a 401 above all, which a token refresh would send again; a 429 past the
          // retry budget) says nothing of an earlier attempt that may still land, and a 5xx says
          // nothing of itself (docs/design.md, "Fencing around a write"): the caller must not take
          // it as "nothing was written".
          ...(write && mayHaveLanded ? { outcome: "unknown" as const } : {}),
        });
      }
    } else {
      unanswered();
      waitMs = backoffMs(policy, attempt);
      if (attempt >= policy.maxAttempts || waitedMs + waitMs > policy.maxTotalWaitMs) {
        throw providerError(ctx.secrets, {
          provider: spec.provider,
          status: null,
          message: outcome.error,
          attempts: attempt,
          ...(write ? { outcome: "unknown" as const } : {}),
        });
      }
    }
    if (waitMs > 0) await ctx.clock.sleep(waitMs);
    waitedMs += waitMs;
  }
}

/** The transport's LOCK_LOST for a request that changes nothing, said as what it is (LeaseLostOnRead). */
function readLost(err: unknown, req: ProviderRequest): unknown {
  if (!isSponsonError(err) || err.code !== "LOCK_LOST" || err instanceof LeaseLostOnRead) return err;
  const { outcome: _, ...detail } = err.detail ?? {};
  const message = inFlightAtDeadline(err)
    ? `${req.method} to ${new URL(req.url).host} changes nothing and was still unanswered at the lease deadline: the lease is lost (nothing it sent can land)`
    : err.message;
  return new LeaseLostOnRead(message, Object.keys(detail).length > 0 ? detail : undefined);
}

/** The fenced transport's verdict on a request still in flight at the lease deadline (it may land). */
function inFlightAtDeadline(err: unknown): boolean {
  return isSponsonError(err) && err.outcome === "unknown";
}

/** providerRequest, then the JSON body validated with `schema` (a provider is a trust boundary). */
export async function providerJson<S extends z.ZodType>(
  ctx: HttpContext,
  spec: ProviderHttpSpec,
  req: ProviderRequest,
  schema: S,
): Promise<z.output<S>> {
  const response = await providerRequest(ctx, spec, req);
  const body = await readBody(response);
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw providerError(ctx.secrets, {
    provider: spec.provider,
    status: response.status,
    message: `unexpected response from ${req.method} ${new URL(req.url).pathname}: ${parsed.error.issues
      .map((i) => `${i.path.join(".") || "(body)"} ${i.message}`)
      .join("; ")}`,
    attempts: 1,
  });
}
