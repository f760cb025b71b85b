/**
 * A provider tenant's budget from the callers' side (workers/adapters/http/provider-budget.ts;
 * docs/design.md, "Write budgets"): callers on different isolates, each with its own TenantBudget,
 * draw on the one budget object of their tenant; a wait past the deadline is refused unsent; a
 * 429 one of them meets slows every one of them down. The object is the real one; time is a
 * StepClock (sleeps pass at once and are recorded), so every wait shows as a number.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EMULATOR_NOW_HEADER } from "../../../dev/emulators/knobs";
import { emulatorTransport } from "../../../dev/entry/dev-env";
import type { Clock } from "../../../shared/clock";
import { SponsonError } from "../../../shared/errors";
import { type BudgetBucketApi, type BudgetRate, budgetObjectName } from "../../../shared/rpc/budget-bucket";
import { rpcStub } from "../../../shared/rpc/stub";
import { SecretRegistry } from "../../../shared/secrets";
import { type Auth0Context, readClientLists } from "../../../workers/adapters/auth0/management-api";
import { AUTH0_BUDGET, GCS_BUDGET } from "../../../workers/adapters/budgets";
import {
  type BudgetSettings,
  counted,
  type SharedBudgets,
  TenantBudget,
} from "../../../workers/adapters/http/provider-budget";
import { StepClock } from "../../helpers/clock";
import { configureHost, emulatorStub, freshAuth0Domain } from "../../helpers/emulators";
import { APP_CLIENT, seedTenant, TEST_M2M } from "../../helpers/plans";

const FREE: BudgetRate = { burst: 2, perSecond: 2 };

function namespace() {
  if (!env.BUDGET_BUCKET) throw new Error("BUDGET_BUCKET is not bound");
  return env.BUDGET_BUCKET;
}

/** The fleet's door, as the wiring builds it, counting the object calls made through it. */
function fleet(): SharedBudgets & { takes: number } {
  const door = {
    takes: 0,
    object(name: string): BudgetBucketApi {
      const stub = rpcStub(namespace(), name);
      return {
        take: (request) => {
          door.takes += 1;
          return stub.take(request);
        },
        drain: (request) => stub.drain(request),
        status: (rate, nowMs) => stub.status(rate, nowMs),
      };
    },
  };
  return door;
}

/** One isolate's budget for the Auth0 tenant `domain`. */
function isolate(domain: string, clock: Clock, more: Partial<BudgetSettings> = {}): TenantBudget {
  return new TenantBudget({
    provider: "auth0",
    connection: `auth0-${domain}`,
    spec: AUTH0_BUDGET,
    rate: FREE,
    config: { type: "auth0", domain },
    door: fleet(),
    clock,
    runDeadline: () => Number.POSITIVE_INFINITY,
    ...more,
  });
}

const read = (domain: string) => ({ method: "GET", url: `https://${domain}/api/v2/clients/${APP_CLIENT}` });
const write = (domain: string) => ({
  method: "PATCH",
  url: `https://${domain}/api/v2/clients/${APP_CLIENT}`,
});

async function refusal(call: Promise<unknown>): Promise<SponsonError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof SponsonError)) throw new Error(`expected a SponsonError, got ${String(err)}`);
  return err;
}

describe("a provider tenant's budget, shared by the fleet", () => {
  it("two isolates on one Auth0 tenant share its burst of 2: the third call waits one interval", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const [a, b] = [isolate(domain, clock), isolate(domain, clock)];
    await a.before(read(domain));
    await b.before(read(domain));
    expect(clock.sleeps).toEqual([]);
    await a.before(write(domain));
    await b.before(write(domain));
    expect(clock.sleeps).toEqual([500, 500]);
  });

  it("control: isolates of two tenants do not wait for each other", async () => {
    const clock = new StepClock();
    const [one, two] = [freshAuth0Domain("budget"), freshAuth0Domain("budget")];
    for (let i = 0; i < 2; i++) {
      await isolate(one, clock).before(read(one));
      await isolate(two, clock).before(read(two));
    }
    expect(clock.sleeps).toEqual([]);
  });

  it("a call the budget allows only past the lease deadline is refused unsent, and takes nothing", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const budget = isolate(domain, clock);
    await budget.before(read(domain));
    await budget.before(read(domain));
    const err = await refusal(budget.before(write(domain), () => clock.now() + 499));
    expect(err.code).toBe("BUDGET_EXHAUSTED");
    expect(err.retriable).toBe(true);
    expect(err.detail).toMatchObject({ retryAfterSeconds: 1, sent: false, budget: FREE });
    expect(err.message).toContain(domain);
    expect(clock.sleeps).toEqual([]);
    // The refused call took nothing: the next one gets the time it would have had.
    await budget.before(write(domain), () => clock.now() + 500);
    expect(clock.sleeps).toEqual([500]);
  });

  it("outside a lease the run's own deadline bounds the wait", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const budget = isolate(domain, clock, { runDeadline: () => clock.now() + 100 });
    await budget.before(read(domain));
    await budget.before(read(domain));
    expect((await refusal(budget.before(read(domain)))).code).toBe("BUDGET_EXHAUSTED");
  });

  it("a 429 one isolate meets drains the bucket for all: the others wait for the reset", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const [a, b] = [isolate(domain, clock), isolate(domain, clock)];
    expect(await a.throttled(read(domain), clock.now(), clock.now() + 3000)).toBe(true);
    await b.before(read(domain));
    await b.before(read(domain));
    expect(clock.sleeps).toEqual([3000, 500]);
  });

  it("what a provider counts: Auth0 every Management API call, not its token endpoint; GCS its bucket writes", () => {
    expect(counted(AUTH0_BUDGET, read("t.us.auth0.com"))).toBe(true);
    expect(counted(AUTH0_BUDGET, write("t.us.auth0.com"))).toBe(true);
    expect(
      counted(AUTH0_BUDGET, { method: "POST", url: "https://t.us.auth0.com/oauth/token", read: true }),
    ).toBe(false);
    const bucket = "https://storage.googleapis.com/storage/v1/b/assets";
    expect(counted(GCS_BUDGET, { method: "GET", url: bucket })).toBe(false);
    expect(counted(GCS_BUDGET, { method: "PATCH", url: bucket })).toBe(true);
    expect(counted(GCS_BUDGET, { method: "POST", url: "https://oauth2.googleapis.com/token" })).toBe(false);
  });

  it("a section's read and write take their tokens together: the write asks the object nothing", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const door = fleet();
    const section = isolate(domain, clock, { door }).section({ reads: 1, writes: 1 });
    await section.before(read(domain));
    expect(door.takes).toBe(1);
    const name = budgetObjectName("auth0", domain);
    expect((await rpcStub(namespace(), name).status(FREE, clock.now()))?.tokens).toBe(0);
    await section.before(write(domain));
    expect(door.takes).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("a section's write token is good for one interval: later, the write takes its own", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const door = fleet();
    const section = isolate(domain, clock, { door }).section({ reads: 1, writes: 1 });
    await section.before(read(domain));
    clock.jump(501);
    await section.before(write(domain));
    expect(door.takes).toBe(2);
  });

  it("a high rate (10,000/s) and an object that answers in 5 ms: one take per call, never a loop", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const door = fleet();
    const slow: SharedBudgets = {
      object: (name) => {
        const inner = door.object(name);
        return {
          ...inner,
          // The round trip takes 5 ms of the caller's time: longer than one interval (0.1 ms).
          take: async (request) => {
            const answer = await inner.take(request);
            clock.advance(5);
            return answer;
          },
        };
      },
    };
    const budget = isolate(domain, clock, { rate: { burst: 10_000, perSecond: 10_000 }, door: slow });
    await budget.before(read(domain));
    await budget.before(write(domain));
    expect(door.takes).toBe(2);
    expect(clock.sleeps).toEqual([]);
  });

  it("a budget object that cannot be reached never stops a call", async () => {
    const domain = freshAuth0Domain("budget");
    const clock = new StepClock();
    const unreachable: SharedBudgets = {
      object: () => ({
        take: () => Promise.reject(new Error("Durable Object reset")),
        drain: () => Promise.reject(new Error("Durable Object reset")),
        status: () => Promise.reject(new Error("Durable Object reset")),
      }),
    };
    const budget = isolate(domain, clock, { door: unreachable });
    for (let i = 0; i < 5; i++) await budget.before(write(domain));
    // Not drained: the retry keeps its own backoff.
    expect(await budget.throttled(write(domain), clock.now(), undefined)).toBe(false);
    expect(clock.sleeps).toEqual([]);
  });
});

describe("Auth0's own 429 feeds the budget back", () => {
  /** A caller on its own isolate, its requests stamped with the clock for the emulator's budget. */
  function caller(domain: string, clock: StepClock, rate: BudgetRate): Auth0Context {
    const inner = emulatorTransport(env);
    return {
      config: { type: "auth0", domain, clientId: TEST_M2M.clientId, clientSecret: TEST_M2M.clientSecret },
      fetch: (input, init) => {
        const request = new Request(input, init);
        request.headers.set(EMULATOR_NOW_HEADER, String(clock.now()));
        return inner(request);
      },
      clock,
      secrets: new SecretRegistry(),
      budget: isolate(domain, clock, { rate }),
    };
  }

  it("a budget set above the tenant's real one meets one 429; every caller after it waits for the reset", async () => {
    const domain = freshAuth0Domain("budget");
    await seedTenant(domain);
    await configureHost(domain, { budget: { ...FREE, clock: "header" } });
    const clock = new StepClock(1_800_000_000_000);
    // Configured as a paid tenant, which this one is not: its fourth and later reads would be refused.
    const paid: BudgetRate = { burst: 10, perSecond: 2.5 };
    for (let i = 0; i < 6; i++) await readClientLists(caller(domain, clock, paid), APP_CLIENT);
    // Two pass on the tenant's burst; the third is refused once, and its retry and every caller
    // after it wait in the drained bucket instead of meeting the provider's refusal themselves.
    expect((await emulatorStub(domain).stats()).throttled).toBe(1);
    expect(clock.sleeps.length).toBeGreaterThan(0);
  });

  it("control: without the shared budget the same callers meet the provider's refusal again and again", async () => {
    const domain = freshAuth0Domain("budget");
    await seedTenant(domain);
    await configureHost(domain, { budget: { ...FREE, clock: "header" } });
    const clock = new StepClock(1_800_000_000_000);
    for (let i = 0; i < 6; i++) {
      const { budget: _, ...alone } = caller(domain, clock, FREE);
      await readClientLists(alone, APP_CLIENT);
    }
    expect((await emulatorStub(domain).stats()).throttled).toBeGreaterThan(1);
  });
});
