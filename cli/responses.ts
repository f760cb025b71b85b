/**
 * Reading the service's answers: JSON and problem bodies checked against their schemas, a run's
 * NDJSON stream, and the ApiError each failure becomes (docs/api.md).
 */
import type { z } from "zod";
import { ERROR_CODES, ERROR_TABLE, type ErrorCode } from "../shared/errors";
import { problemSchema } from "../shared/schemas/problem";
import { type RunResult, runResultSchema } from "../shared/schemas/run";
import { type RunEventWire, runEventSchema } from "../shared/schemas/run-event";

import { ApiError } from "./client";

/** A non-2xx JSON answer (not a problem) whose body is a failed run: the run, not a refusal. */
export async function failedRunOf(res: Response): Promise<boolean> {
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("application/json")) return false;
  try {
    const parsed = runResultSchema.safeParse(await res.clone().json());
    return parsed.success && parsed.data.run.status === "failed";
  } catch {
    return false;
  }
}

export function scopePath(environment: string, scope: string): string {
  return `/v1/scopes/${encodeURIComponent(environment)}/${encodeURIComponent(scope)}`;
}

export async function readJson(res: Response): Promise<unknown> {
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

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, path: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "";
  throw new ApiError("BAD_RESPONSE", `unexpected response from ${path} (${where})`, 200);
}

/** The code a status stands for when the body is not a problem we can read. */
export function codeOfStatus(status: number): ErrorCode {
  return ERROR_CODES.find((code) => ERROR_TABLE[code].status === status) ?? "INTERNAL";
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP date; anything else is no advice. */
export function retryAfter(header: string | null): number {
  if (header === null) return 0;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? 0 : Math.max(0, at - Date.now());
}

export async function problemError(res: Response): Promise<ApiError> {
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
export async function readRunStream(
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
