/**
 * Pure decisions of a provider tenant's budget (docs/design.md, "Write budgets"): a token bucket
 * that promises send times. No `this`, no I/O, no clock: `nowMs` is always passed in, so the
 * object and the tests ask the same questions of the same data.
 *
 * The bucket holds `tokens` as of `atMs`; it refills at `perSecond` up to `burst`. A take of
 * `cost` calls is granted at once when the tokens are there, else at the time the refill brings
 * them — and is counted now, so the bucket goes negative: those are calls promised to callers
 * who wait for their time (a queue in arithmetic, first come first served). A take whose time
 * would be past its caller's deadline is refused and takes nothing. A provider's 429 drains the
 * bucket so nothing is granted before the reset it names.
 */
import { type BudgetRate, intervalMs } from "../shared/rpc/budget-bucket";

export interface BucketState {
  /** Tokens at `atMs`; negative: calls already promised beyond what the bucket holds. */
  readonly tokens: number;
  readonly atMs: number;
}

export type TakeDecision =
  | { kind: "granted"; atMs: number; state: BucketState }
  | { kind: "refused"; atMs: number };

/** Grant times are whole ms, rounded up; the tolerance keeps float dust from adding a ms. */
const toMs = (at: number) => Math.ceil(at - 1e-6);

/**
 * The bucket at `nowMs`: refilled since its time, never past the burst. Time never runs backwards
 * for it: a caller whose clock is behind sees it as of its own time (and waits that much longer).
 * No state yet: a full bucket.
 */
export function refill(state: BucketState | undefined, rate: BudgetRate, nowMs: number): BucketState {
  if (state === undefined) return { tokens: rate.burst, atMs: nowMs };
  const atMs = Math.max(state.atMs, nowMs);
  const tokens = Math.min(rate.burst, state.tokens + ((atMs - state.atMs) * rate.perSecond) / 1000);
  return { tokens, atMs };
}

/**
 * `cost` calls at `nowMs`: when they may be sent, and the bucket after them; or refused, taking
 * nothing, when that is past `notAfterMs`. A cost above the burst is taken as the burst: the
 * provider never allows more at once, so no caller may be promised more.
 */
export function take(
  state: BucketState | undefined,
  rate: BudgetRate,
  ask: { nowMs: number; cost: number; notAfterMs: number },
): TakeDecision {
  const now = refill(state, rate, ask.nowMs);
  const left = now.tokens - Math.min(ask.cost, rate.burst);
  const atMs = left >= 0 ? now.atMs : toMs(now.atMs + (-left * 1000) / rate.perSecond);
  if (atMs > ask.notAfterMs) return { kind: "refused", atMs };
  return { kind: "granted", atMs, state: { tokens: left, atMs: now.atMs } };
}

/**
 * The provider answered 429 (or said its budget is spent) at `nowMs`, passing calls again at
 * `untilMs` (its reset header): the bucket holds only what lets the first take come at the reset.
 * A reset already past (clocks apart) still says the bucket is empty now: the first take comes
 * one interval later. Never raises the bucket: calls promised past the reset stay where they are.
 */
export function drain(
  state: BucketState | undefined,
  rate: BudgetRate,
  report: { nowMs: number; untilMs: number },
): BucketState {
  const now = refill(state, rate, report.nowMs);
  const until = report.untilMs > now.atMs ? report.untilMs : now.atMs + intervalMs(rate);
  const atReset = 1 - ((until - now.atMs) * rate.perSecond) / 1000;
  return { tokens: Math.min(now.tokens, atReset), atMs: now.atMs };
}
