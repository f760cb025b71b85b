/**
 * A run's timings on its HTTP answer: a `Server-Timing` header (W3C Server Timing) next to the
 * `timings` the result carries, and the request's own part of them (its arrival, authentication
 * and validation before the engine starts).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { RunTimings } from "../../shared/schemas/run";
import type { AppEnv } from "../app-env";
import { RunMetrics } from "../engine/run/run-metrics";

/** Header metric names, in the order they are sent. */
const METRIC_NAMES: ReadonlyArray<readonly [keyof RunTimings, string]> = [
  ["authorization", "auth"],
  ["scopeLockWait", "scope-lock"],
  ["parentLockWait", "parent-lock"],
  ["provider", "provider"],
  ["storage", "storage"],
  ["budgetWait", "budget"],
  ["total", "total"],
];

/** First in the chain: when the request arrived, so a run's total and authorization include auth. */
export function markArrival(): MiddlewareHandler<AppEnv> {
  return async function markArrival(c, next) {
    c.set("receivedAt", performance.now());
    await next();
  };
}

/** Metrics for a run started by this request: authorization so far is everything since arrival. */
export function requestMetrics(c: Context<AppEnv>): RunMetrics {
  const receivedAt = c.get("receivedAt");
  const metrics = new RunMetrics(receivedAt);
  if (receivedAt !== undefined) metrics.add("authorization", performance.now() - receivedAt);
  return metrics;
}

/** `auth;dur=1.5, scope-lock;dur=3, …`: the parts present in `timings`, in a fixed order. */
export function serverTiming(timings: Partial<RunTimings>): string {
  return METRIC_NAMES.filter(([field]) => timings[field] !== undefined)
    .map(([field, name]) => `${name};dur=${timings[field]}`)
    .join(", ");
}
