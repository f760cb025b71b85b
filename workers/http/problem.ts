/**
 * RFC 9457 problem details. Every error leaves the Worker through here with a stable `code`;
 * unknown errors are logged and become a generic 500 that reveals nothing.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ERROR_TABLE, type ErrorCode, isSponsonError, SponsonError } from "../../shared/errors";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  retriable: boolean;
  instance?: string;
  [extension: string]: unknown;
}

export function problemOf(err: SponsonError, instance?: string): Problem {
  const info = ERROR_TABLE[err.code];
  // Extension members first: a detail field may never replace a standard member (RFC 9457 §3.2).
  return {
    ...(err.detail ?? {}),
    type: `https://sponson.dev/problems/${err.code.toLowerCase().replaceAll("_", "-")}`,
    title: info.title,
    status: info.status,
    code: err.code,
    detail: err.message,
    retriable: err.retriable,
    ...(instance ? { instance } : {}),
  };
}

export function problemResponse(err: SponsonError, instance?: string): Response {
  const problem = problemOf(err, instance);
  const headers: Record<string, string> = { "content-type": PROBLEM_CONTENT_TYPE };
  // RFC 9110 §10.2.3: how long to wait, for a 429 that knows it, or a lock until its holder's expiry.
  const retryAfter = err.detail?.retryAfterSeconds ?? lockRetryAfter(err, Date.now());
  if (typeof retryAfter === "number") headers["retry-after"] = String(retryAfter);
  return new Response(JSON.stringify(problem), { status: problem.status, headers });
}

/**
 * LOCK_HELD: seconds until the holder's lease (or a hold) ends, at least 1 (docs/design.md, "Lock
 * answers"); none when the answer names no end.
 */
export function lockRetryAfter(err: SponsonError, now: number): number | undefined {
  if (err.code !== "LOCK_HELD") return undefined;
  const holder = err.detail?.holder as { expiresAt?: unknown; hold?: { until?: unknown } } | undefined;
  const until = holder?.expiresAt ?? holder?.hold?.until;
  if (typeof until !== "number") return undefined;
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/** Hono's own HTTP errors (malformed JSON, …) keep their status under our codes. */
function fromHttpException(err: HTTPException): SponsonError {
  const code: ErrorCode =
    err.status === 401
      ? "UNAUTHENTICATED"
      : err.status === 413
        ? "PAYLOAD_TOO_LARGE"
        : err.status === 404
          ? "NOT_FOUND"
          : "VALIDATION";
  return new SponsonError(code, err.message || ERROR_TABLE[code].title);
}

export function onError(err: Error, c: Context): Response {
  if (isSponsonError(err)) return problemResponse(err, new URL(c.req.url).pathname);
  if (err instanceof HTTPException && err.status < 500) {
    return problemResponse(fromHttpException(err), new URL(c.req.url).pathname);
  }
  console.error("unhandled error", err);
  return problemResponse(new SponsonError("INTERNAL", "internal error"), new URL(c.req.url).pathname);
}

export function notFound(c: Context): Response {
  const path = new URL(c.req.url).pathname;
  return problemResponse(new SponsonError("NOT_FOUND", `no route for ${c.req.method} ${path}`), path);
}
