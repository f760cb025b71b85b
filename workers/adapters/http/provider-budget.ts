/**
 * Each provider tenant's management-API budget, from the caller's side (docs/design.md, "Write
 * budgets"): before a call the provider counts, a token is taken from the tenant's bucket in the
 * fleet's budget object (durable-objects/budget-bucket.ts), waiting on the caller's clock for the
 * time the object names; a 429 drains that bucket until the reset, so every isolate slows down
 * together instead of each meeting the provider's refusal on its own.
 *
 * A wait ends at the earlier of the lease's deadline (under a lease: a wait never outlives the
 * lease it is made under) and the run's own; a call the budget allows only later is not sent and
 * fails BUDGET_EXHAUSTED (retriable, nothing sent). The object saves 429s; it is never needed for
 * a run: when it cannot be reached the call is sent as it would be without it.
 */
import type { Clock } from "../../../shared/clock";
import { isSponsonError, SponsonError } from "../../../shared/errors";
import {
  type BudgetBucketApi,
  type BudgetRate,
  budgetObjectName,
  intervalMs,
} from "../../../shared/rpc/budget-bucket";
import { rateLimitResetAtMs } from "./reset-headers";

/** What an adapter declares of its provider's budget (docs/adapters.md, "Write budgets"). */
export interface ProviderBudget {
  /** The documented default for one tenant; a connection's `budget` replaces it. */
  readonly rate: BudgetRate;
  /** What the provider counts: every call to its management API, or its writes only (GCS). */
  readonly counts: "calls" | "writes";
  /** Whether a request goes to the budgeted API at all (a token endpoint has limits of its own). */
  api(url: URL): boolean;
  /** The tenant the provider counts per, from the connection's settings and the URL; absent: the connection. */
  tenant?(config: Record<string, unknown>, url: URL): string;
  /** Where the default comes from, as `config check` shows it. */
  readonly source: string;
}

/** One connection's door to the fleet's budget objects (wired in workers/wiring/wire.ts). */
export interface SharedBudgets {
  /** The object named `name` (budgetObjectName). */
  object(name: string): BudgetBucketApi;
  /** Runs a wait for budget, timed into the run's metrics (workers/engine/metered-deps.ts). */
  waiting?<T>(wait: () => Promise<T>): Promise<T>;
}

/** The part of a provider request the budget reads. */
export interface BudgetedRequest {
  method: string;
  url: string;
  read?: true;
}

/** What an HttpContext carries (provider-request.ts asks it before every attempt). */
export interface RequestBudget {
  /**
   * Before an attempt of `req`: a token when the provider counts it, waited for until the
   * earlier of `leaseDeadline` and the run's deadline; past it, BUDGET_EXHAUSTED.
   */
  before(req: BudgetedRequest, leaseDeadline?: () => number): Promise<void>;
  /**
   * A throttled answer to `req` at `nowMs`, the provider passing calls again at `retryAtMs`
   * (its reset header; absent: none given). Whether the bucket was drained: then the retry waits
   * in it, not in a backoff of its own.
   */
  throttled(req: BudgetedRequest, nowMs: number, retryAtMs: number | undefined): Promise<boolean>;
  /**
   * The budget of one critical section: its first counted call takes the tokens of the calls
   * `expected` (a read and its write) at once, so the write waits for nothing after the read.
   */
  section(expected: { reads: number; writes: number }): RequestBudget;
}

export interface BudgetSettings {
  /** The provider type, first part of the object's name. */
  provider: string;
  connection: string;
  spec: ProviderBudget;
  /** In force: the connection's `budget`, else the spec's default. */
  rate: BudgetRate;
  /** The connection's adapter config, for `spec.tenant`. */
  config: Record<string, unknown>;
  door: SharedBudgets;
  clock: Clock;
  /** The run's own deadline on `clock` (its wait deadline), read when asked. */
  runDeadline: () => number;
}

/** Calls taken ahead for a section, good until one interval past their grant. */
interface Credit {
  name: string;
  left: number;
  goodUntilMs: number;
}

const ignore = () => undefined;

/**
 * How far past its time a woken caller may still send: beyond it the isolate stalled and the calls
 * granted after it may have emptied the bucket, so the tokens are taken again (at most MAX_TAKES
 * times: a caller never loops on the object).
 */
const STALL_MS = 1_000;
const MAX_TAKES = 3;

/** Whether the provider counts `req` against the budget `spec` declares. */
export function counted(spec: ProviderBudget, req: BudgetedRequest): boolean {
  if (!spec.api(new URL(req.url))) return false;
  return spec.counts === "calls" || (req.method !== "GET" && req.read !== true);
}

export class TenantBudget implements RequestBudget {
  readonly #s: BudgetSettings;
  /** A section's: the calls its first counted call takes tokens for (consumed by that call). */
  #expected: number | undefined;
  #credit: Credit | undefined;

  constructor(settings: BudgetSettings, expected?: number) {
    this.#s = settings;
    this.#expected = expected;
  }

  section(expected: { reads: number; writes: number }): RequestBudget {
    const calls = this.#s.spec.counts === "calls" ? expected.reads + expected.writes : expected.writes;
    return new TenantBudget(this.#s, Math.max(1, calls));
  }

  async before(req: BudgetedRequest, leaseDeadline?: () => number): Promise<void> {
    const { spec, clock } = this.#s;
    if (!counted(spec, req)) return;
    const name = this.#nameOf(req);
    const credit = this.#credit;
    if (credit?.name === name && credit.left > 0 && clock.now() <= credit.goodUntilMs) {
      credit.left -= 1;
      return;
    }
    const cost = Math.min(this.#expected ?? 1, this.#s.rate.burst);
    this.#expected = undefined;
    // Finite over RPC: no deadline at all is the farthest time there is.
    const notAfterMs = Math.min(
      leaseDeadline?.() ?? Number.MAX_SAFE_INTEGER,
      this.#s.runDeadline(),
      Number.MAX_SAFE_INTEGER,
    );
    const wait = () => this.#take(name, cost, notAfterMs);
    const grant = await (this.#s.door.waiting ? this.#s.door.waiting(wait) : wait());
    if (grant !== null && cost > 1) this.#credit = { name, left: cost - 1, goodUntilMs: grant.goodUntilMs };
  }

  async throttled(req: BudgetedRequest, nowMs: number, retryAtMs: number | undefined): Promise<boolean> {
    if (!counted(this.#s.spec, req)) return false;
    const { door, rate } = this.#s;
    // Not drained (the object unreachable): the retry keeps its own backoff.
    const drained = await door
      .object(this.#nameOf(req))
      .drain({ rate, nowMs, untilMs: retryAtMs ?? nowMs })
      .catch(ignore);
    return drained === true;
  }

  #nameOf(req: BudgetedRequest): string {
    const { spec, config, connection, provider } = this.#s;
    return budgetObjectName(provider, spec.tenant?.(config, new URL(req.url)) ?? connection);
  }

  /**
   * Takes `cost` tokens and waits for their time; null when the object could not be reached (the
   * call goes as it would without it). A time that passed by more than STALL_MS before the
   * caller woke (a stalled isolate) is not used: sent that late it may meet a bucket the calls
   * granted after it have emptied, so the tokens are taken again (docs/design.md, "Write budgets").
   */
  async #take(name: string, cost: number, notAfterMs: number): Promise<{ goodUntilMs: number } | null> {
    const { door, rate, clock } = this.#s;
    for (let attempt = 1; ; attempt++) {
      const nowMs = clock.now();
      let answer: Awaited<ReturnType<BudgetBucketApi["take"]>>;
      try {
        answer = await door.object(name).take({ rate, nowMs, cost, notAfterMs });
      } catch {
        return null;
      }
      // A request the object could not parse is this code's bug: said loudly, never sent around.
      if (answer.kind === "invalid")
        throw new SponsonError("INTERNAL", `budget object refused the request: ${answer.fields.join(", ")}`);
      if (answer.kind === "refused") throw this.#spent(name, answer.atMs, notAfterMs);
      const late = answer.atMs - clock.now();
      // Its time has come already (the object's answer took longer than an interval, at a high
      // rate): sent now. Only a sleep overslept by more than STALL_MS is a stalled isolate.
      if (late <= 0) return { goodUntilMs: clock.now() + intervalMs(rate) };
      await clock.sleep(late);
      if (clock.now() <= answer.atMs + Math.max(intervalMs(rate), STALL_MS) || attempt >= MAX_TAKES)
        return { goodUntilMs: clock.now() + intervalMs(rate) };
    }
  }

  #spent(name: string, atMs: number, notAfterMs: number): SponsonError {
    const { provider, connection, rate, clock } = this.#s;
    const tenant = name.slice(provider.length + 1);
    const inSeconds = Math.max(1, Math.ceil((atMs - clock.now()) / 1000));
    return new SponsonError(
      "BUDGET_EXHAUSTED",
      `${provider}: the budget of ${tenant} (${rate.burst} at once, ${rate.perSecond}/s) allows this call only in ${inSeconds} s, after the deadline it must be sent by: nothing was sent`,
      {
        provider,
        tenant,
        connection,
        budget: rate,
        deadlineInMs: Math.max(0, Math.round(notAfterMs - clock.now())),
        retryAfterSeconds: inSeconds,
        sent: false,
      },
    );
  }
}

/** What provider-request.ts hands the two calls below. */
interface BudgetedContext {
  budget?: RequestBudget | undefined;
  clock: Clock;
  deadline?: (() => number) | undefined;
}

/**
 * The budget's token for an attempt. Its refusal sent nothing; after an attempt of the same write
 * that may have landed, it says nothing of that one: the outcome is unknown (docs/design.md,
 * "Fencing around a write").
 */
export async function budgetFor(ctx: BudgetedContext, req: BudgetedRequest, afterUnanswered: boolean) {
  if (!ctx.budget) return;
  try {
    await ctx.budget.before(req, ctx.deadline);
  } catch (err) {
    if (!afterUnanswered || !isSponsonError(err) || err.code !== "BUDGET_EXHAUSTED") throw err;
    const { sent: _, ...detail } = err.detail ?? {};
    throw new SponsonError(err.code, `${err.message} (an earlier attempt may have landed)`, {
      ...detail,
      outcome: "unknown",
    });
  }
}

/**
 * A throttled answer drains the call's tenant budget until the reset its adapter read (`hintMs`),
 * else any rate-limit header it carries; whether it did (the call is a counted one).
 */
export async function drainAfter(
  ctx: BudgetedContext,
  req: BudgetedRequest,
  answer: { response: Response; hintMs: number | undefined },
): Promise<boolean> {
  if (!ctx.budget) return false;
  const nowMs = ctx.clock.now();
  const { response, hintMs } = answer;
  const untilMs = hintMs !== undefined ? nowMs + hintMs : rateLimitResetAtMs(response, nowMs);
  return ctx.budget.throttled(req, nowMs, untilMs);
}

/**
 * `ctx` for one critical section: its read and the write after it take their tokens together,
 * before the read, so the write never waits for budget with a decision in hand (docs/design.md,
 * "Write budgets"). A section that then writes nothing leaves its write's token unused.
 */
export function sectionBudget<C extends { budget?: RequestBudget }>(ctx: C): C {
  return ctx.budget ? { ...ctx, budget: ctx.budget.section({ reads: 1, writes: 1 }) } : ctx;
}
