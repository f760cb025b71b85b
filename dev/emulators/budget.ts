/**
 * A provider's own management-API budget, as the emulators enforce it when a test or the bench
 * turns it on (knob `budget`, ./knobs.ts): a token bucket per what the provider counts per (an
 * Auth0 tenant, a GCS bucket), full at first, answering a counted call past it with the
 * provider's own 429 (its module's `budgetRefusal`). Written apart from the service's own bucket
 * (durable-objects/budget-rules.ts) on purpose: the emulator is the provider, the oracle the
 * service is tested against, and must not share its arithmetic.
 */

export interface EmulatedRate {
  burst: number;
  perSecond: number;
}

/** What a module says of its provider's budget (ProviderEmulatorModule's optional hooks). */
export interface BudgetedModule {
  /** What the provider counts the request per (a tenant, a bucket); null: it does not count it. */
  budgetKey?(request: Request): string | null;
  /** The provider's 429 for a call past its budget, with its own headers and body. */
  budgetRefusal?(limit: EmulatedRate, view: BudgetView): Response;
  /** The provider's rate-limit headers on an answer it counted (none: the provider sends none). */
  budgetHeaders?(limit: EmulatedRate, view: BudgetView): Record<string, string>;
}

/** The bucket as a provider reports it, at the request's time. */
export interface BudgetView {
  nowMs: number;
  /** Whole calls left now. */
  remaining: number;
  /** When the next call passes (a refusal's reset), or when the bucket is full again. */
  resetAtMs: number;
}

/** Float dust of many small refills must not refuse a call that is on time. */
const EPSILON = 1e-9;

export class EmulatedBucket {
  #tokens: number;
  #atMs: number;
  readonly #rate: EmulatedRate;

  constructor(rate: EmulatedRate, nowMs: number) {
    this.#rate = rate;
    this.#tokens = rate.burst;
    this.#atMs = nowMs;
  }

  /** One call at `nowMs`: passed (and counted), or refused with when the next one passes. */
  call(nowMs: number): { passed: boolean; view: BudgetView } {
    const { burst, perSecond } = this.#rate;
    // Requests may arrive a little out of their order: time never runs backwards here.
    const at = Math.max(nowMs, this.#atMs);
    this.#tokens = Math.min(burst, this.#tokens + ((at - this.#atMs) * perSecond) / 1000);
    this.#atMs = at;
    const passed = this.#tokens >= 1 - EPSILON;
    if (passed) this.#tokens = Math.max(0, this.#tokens - 1);
    const missing = passed ? burst - this.#tokens : 1 - this.#tokens;
    return {
      passed,
      view: {
        nowMs: at,
        remaining: Math.floor(this.#tokens + EPSILON),
        resetAtMs: at + (missing * 1000) / perSecond,
      },
    };
  }
}
