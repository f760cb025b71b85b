/**
 * A run answered as one JSON document, or (Accept: application/x-ndjson) as one event per line
 * while it happens. A run refused before it starts is still a problem response in both modes: the
 * stream only opens once the run's first event exists. A JSON answer's status tells the outcome
 * (./run-status.ts: never a 2xx for a failed run); a stream's is 200, its final event tells it.
 *
 * Every answer carries a `Server-Timing` header. A JSON answer's holds the run's full timings; a
 * stream's headers leave before the run ends, so they hold only what is known then (authorization)
 * and the full timings come in the final `result` event. A refusal's holds the timings up to it.
 */
import type { Context } from "hono";
import { SponsonError } from "../../shared/errors";
import type { RunEvent, RunResult } from "../../shared/schemas/run";
import { configFromEnv } from "../config/config";
import type { Emit } from "../engine/deps";
import { errorInfo } from "../engine/run/run";
import type { RunMetrics } from "../engine/run/run-metrics";
import { lockRetryAfter, onError } from "./problem";
import { runCause, runStatus } from "./run-status";
import { serverTiming } from "./server-timing";

export const NDJSON = "application/x-ndjson";
const SERVER_TIMING = "Server-Timing";

export function wantsStream(c: Context): boolean {
  return (c.req.header("accept") ?? "").includes(NDJSON);
}

/** How often a streamed run says it is still there; 15 s unless STREAM_KEEPALIVE_SECONDS says. */
function keepAliveMs(c: Context): number {
  return configFromEnv(c.env as object).streamKeepAliveSeconds * 1000;
}

export async function answerRun(
  c: Context,
  metrics: RunMetrics,
  start: (emit: Emit) => Promise<RunResult>,
): Promise<Response> {
  try {
    return await (wantsStream(c) ? streamRun(c, metrics, start, keepAliveMs(c)) : jsonRun(c, metrics, start));
  } catch (err) {
    // The problem response onError would write, with how long the refused run took to refuse.
    if (!(err instanceof Error)) throw err;
    const res = onError(err, c);
    res.headers.set(SERVER_TIMING, serverTiming(metrics.timings()));
    return res;
  }
}

async function jsonRun(c: Context, metrics: RunMetrics, start: (emit: Emit) => Promise<RunResult>) {
  const run = start(() => {});
  // As for a stream: a client that hangs up (a cancelled CI job) must not cancel the run between
  // its provider write and its receipt save. A refusal still answers below, as a problem.
  c.executionCtx.waitUntil(run.catch(() => {}));
  const result = await run;
  // A failed run is never a 2xx (workers/http/run-status.ts); its body is the run all the same.
  const headers: Record<string, string> = {
    [SERVER_TIMING]: serverTiming(result.timings ?? metrics.timings()),
  };
  // A run failed by a held lock says how long to wait, as a LOCK_HELD refusal does (RFC 9110 §10.2.3).
  const cause = runCause(result);
  const retryAfter =
    cause?.code === "LOCK_HELD"
      ? lockRetryAfter(new SponsonError("LOCK_HELD", cause.message, cause.detail), Date.now())
      : typeof cause?.detail?.retryAfterSeconds === "number"
        ? cause.detail.retryAfterSeconds
        : undefined;
  if (retryAfter !== undefined) headers["Retry-After"] = String(retryAfter);
  return c.json(result, runStatus(result), headers);
}

async function streamRun(
  c: Context,
  metrics: RunMetrics,
  start: (emit: Emit) => Promise<RunResult>,
  intervalMs: number,
) {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  // A client that went away must not stop the run: its writes are dropped, the run goes on.
  const send = (event: RunEvent) =>
    void writer.write(encoder.encode(`${JSON.stringify(event)}\n`)).catch(() => {});
  let opened!: () => void;
  const firstEvent = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const run = start((event) => {
    opened();
    send(event);
  });
  // Throws (→ problem response) if the run was refused before emitting anything or the first interval.
  let firstWait: ReturnType<typeof setTimeout> | undefined;
  const stillWaiting = new Promise<"waiting">((resolve) => {
    firstWait = setTimeout(() => resolve("waiting"), intervalMs);
  });
  try {
    if ((await Promise.race([firstEvent, run, stillWaiting])) === "waiting") send({ type: "keepalive" });
  } finally {
    clearTimeout(firstWait);
  }
  const beat = setInterval(() => send({ type: "keepalive" }), intervalMs);
  const finished = run
    .catch((err) => send({ type: "error", error: errorInfo(err) }))
    .finally(() => {
      clearInterval(beat);
      return writer.close().catch(() => {});
    });
  c.executionCtx.waitUntil(finished);
  return new Response(readable, {
    status: 200,
    headers: {
      "content-type": NDJSON,
      "cache-control": "no-store",
      [SERVER_TIMING]: serverTiming({ authorization: metrics.timings().authorization }),
    },
  });
}
