/**
 * The fleet's budget object's RPC surface (durable-objects/budget-bucket.ts implements it): one
 * object per provider tenant holds the token bucket of that tenant's management-API budget, so
 * every isolate's calls to one tenant draw on one budget (docs/design.md, "Write budgets").
 *
 * The object never waits and never calls anyone: a `take` is answered at once with the time the
 * call may be sent (a reservation; the caller waits on its own clock) or a refusal when that time
 * is past the caller's deadline. Times are the caller's clock (`nowMs`), so tests decide how time
 * passes.
 */
import { z } from "zod";

/**
 * A budget: at most `burst` calls at once, `perSecond` more each second (a token bucket, the
 * model Auth0 documents; a provider that counts per window gets numbers whose window sum stays
 * under its limit: docs/adapters.md, "Write budgets").
 */
export const budgetRateSchema = z.strictObject({
  burst: z.number().int().min(1).max(10_000),
  perSecond: z.number().positive().max(100_000),
});
export type BudgetRate = z.infer<typeof budgetRateSchema>;

const ms = z.number().finite();

export const takeRequestSchema = z.strictObject({
  rate: budgetRateSchema,
  nowMs: ms,
  /** Calls taken together (a read and the write after it: at most `rate.burst`). */
  cost: z.number().int().min(1).max(10_000),
  /** A grant later than this is refused and takes nothing (the lease's or the run's deadline). */
  notAfterMs: z.number(),
});
export type TakeRequest = z.infer<typeof takeRequestSchema>;

export const drainRequestSchema = z.strictObject({
  rate: budgetRateSchema,
  nowMs: ms,
  /** The provider said no call passes before this (its reset header; a 429). */
  untilMs: ms,
});
export type DrainRequest = z.infer<typeof drainRequestSchema>;

/** What `take` answers, on the caller's clock. */
export type TakeAnswer =
  /** Send at `atMs` (now, or later: wait until then). The calls are counted as sent then. */
  | { kind: "granted"; atMs: number }
  /** Not before `atMs`, which is past `notAfterMs`: nothing was taken. */
  | { kind: "refused"; atMs: number }
  /** The request did not parse (a caller's bug): the fields named, nothing taken. */
  | { kind: "invalid"; fields: string[] };

/** What the object says about itself, for a caller's `nowMs`. */
export interface BudgetStatus {
  /** Calls that may be sent at once now; negative: that many are promised beyond the bucket. */
  tokens: number;
  /** When the last call promised may be sent (never before `nowMs`). */
  busyUntilMs: number;
}

export interface BudgetBucketApi {
  take(request: TakeRequest): Promise<TakeAnswer>;
  /** A provider's 429: nothing is granted before `untilMs`. False: the request did not parse. */
  drain(request: DrainRequest): Promise<boolean>;
  /** Null: the rate did not parse. */
  status(rate: BudgetRate, nowMs: number): Promise<BudgetStatus | null>;
}

/** The time between two calls at the budget's sustained rate. */
export function intervalMs(rate: BudgetRate): number {
  return 1000 / rate.perSecond;
}

/**
 * The object's name: the provider type and the tenant it counts per (the Auth0 tenant's domain,
 * a GCS bucket, else the connection), so two connections to one tenant share one budget.
 */
export function budgetObjectName(provider: string, tenant: string): string {
  return `${provider}\n${tenant}`;
}
