/**
 * One object per provider tenant (named by the provider type and the tenant it counts per,
 * shared/rpc/budget-bucket.ts): the token bucket of that tenant's management-API budget, shared by
 * every isolate of the fleet (docs/design.md, "Write budgets"). The decisions are budget-rules.ts;
 * this object keeps the bucket and answers at once — it never waits, so no call is ever held here.
 *
 * The bucket is kept in the object's storage under one key (docs/storage.md, "Budget objects"):
 * an object evicted while its calls wait for their time, or after a 429 whose reset is a minute
 * away, would otherwise come back full and let a burst through that the provider refuses.
 * Requests are validated (the rate comes from the caller's configuration); a bad one is answered
 * as such, naming fields only — never thrown, so nothing the object does fails its caller's RPC.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { Env } from "../shared/env";
import {
  type BudgetBucketApi,
  type BudgetRate,
  type BudgetStatus,
  budgetRateSchema,
  type DrainRequest,
  drainRequestSchema,
  type TakeAnswer,
  type TakeRequest,
  takeRequestSchema,
} from "../shared/rpc/budget-bucket";
import { type BucketState, drain, refill, take } from "./budget-rules";

/** The one storage key (docs/storage.md, "Budget objects"). */
const BUCKET_KEY = "bucket";

const bucketSchema = z.object({ tokens: z.number().finite(), atMs: z.number().finite() });

type Parsed<T> = { ok: true; value: T } | { ok: false; fields: string[] };

function parsed<T>(schema: z.ZodType<T>, value: unknown): Parsed<T> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, fields: [...new Set(result.error.issues.map((i) => i.path.join(".")))] };
}

export class BudgetBucket extends DurableObject<Env> implements BudgetBucketApi {
  async take(request: TakeRequest): Promise<TakeAnswer> {
    const ask = parsed(takeRequestSchema, request);
    if (!ask.ok) return { kind: "invalid", fields: ask.fields };
    const decision = take(this.#read(), ask.value.rate, ask.value);
    if (decision.kind === "refused") return { kind: "refused", atMs: decision.atMs };
    this.#write(decision.state);
    return { kind: "granted", atMs: decision.atMs };
  }

  async drain(request: DrainRequest): Promise<boolean> {
    const report = parsed(drainRequestSchema, request);
    if (!report.ok) return false;
    this.#write(drain(this.#read(), report.value.rate, report.value));
    return true;
  }

  async status(rate: BudgetRate, nowMs: number): Promise<BudgetStatus | null> {
    if (!parsed(budgetRateSchema, rate).ok || !Number.isFinite(nowMs)) return null;
    const state = refill(this.#read(), rate, nowMs);
    const busyUntilMs = state.tokens >= 0 ? nowMs : state.atMs + (-state.tokens * 1000) / rate.perSecond;
    return { tokens: state.tokens, busyUntilMs: Math.max(nowMs, Math.ceil(busyUntilMs)) };
  }

  /** Read back through its schema; anything else is as good as a full bucket. */
  #read(): BucketState | undefined {
    const stored = bucketSchema.safeParse(this.ctx.storage.kv.get(BUCKET_KEY));
    return stored.success ? stored.data : undefined;
  }

  #write(state: BucketState): void {
    this.ctx.storage.kv.put(BUCKET_KEY, state);
  }
}
