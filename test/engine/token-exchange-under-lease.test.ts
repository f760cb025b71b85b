/**
 * docs/design.md, "Fencing around a write", "No remote call under a lease": a token exchange made
 * under a lease (the one after a `401`, or a cached token reaching its refresh time mid-run) changes
 * nothing at the provider. One that gets no answer is an ordinary provider failure: the write it was
 * for was never sent again, so its outcome is known, and the lease is released in time. Before, its
 * network error read as "the write may have landed": LOCK_LOST with outcome "unknown", the lease
 * abandoned and the next holder kept out for a lock-delay although nothing was sent.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../shared/clock";
import type { LockProvider } from "../../workers/engine/deps";
import { lockStub } from "../../workers/locks/lock-target";
import { ManualClock } from "../helpers/clock";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const request = (scope: string) => ({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });
/** Retry backoffs return at once; everything else is real time. */
const instantBackoff: Clock = { ...systemClock, sleep: async () => {} };

/**
 * The run's first PATCH is refused 401 (the token was revoked early) and every token exchange after
 * the first (the one made before any lease) gets no answer.
 */
function revokedThenNoExchange(): (inner: typeof fetch) => typeof fetch {
  let patches = 0;
  let exchanges = 0;
  return (inner) => async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? "GET").toUpperCase();
    if (url.pathname === "/oauth/token" && ++exchanges > 1) throw new TypeError("network connection lost");
    if (method === "PATCH" && ++patches === 1)
      return new Response(JSON.stringify({ statusCode: 401, error: "Unauthorized", message: "revoked" }), {
        status: 401,
        headers: { "content-type": "application/json" },
      });
    return inner(input, init);
  };
}

/** Whether a newcomer is granted the application's lock at once (released again if so). */
async function grantedAtOnce(key: string): Promise<boolean> {
  const probe = await lockStub(env, key).acquire({ key, holder: "run-probe", ttlMs: 1_000 });
  if (probe.ok) await lockStub(env, key).release({ key, holder: "run-probe", token: probe.value.token });
  return probe.ok;
}

describe("a token exchange under a lease that gets no answer", () => {
  it("is a provider failure with a known outcome: nothing was written, and the lease is released in time", async () => {
    const domain = freshAuth0Domain("exchange-lost");
    await seedTenant(domain);
    const key = await appLockKey(domain);
    const plan = previewPlan(domain);

    const result = await testEngine({ clock: instantBackoff, wrapFetch: revokedThenNoExchange() }).apply({
      ...request(freshPr()),
      plan,
    });

    expect(result.run.status).toBe("failed");
    const error = result.lines[0]?.error;
    expect(error?.code, JSON.stringify(error)).toBe("PROVIDER_ERROR");
    expect(error?.detail?.outcome).toBeUndefined();
    expect(await grantedAtOnce(key), "no lock-delay: nothing was sent that could land").toBe(true);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks ?? []).toEqual([]);
  });
});

/** The parent lock's renewals never reach the object: the deadline measured at the claims stands. */
const parentRenewalsFail = (inner: LockProvider): LockProvider => ({
  ...inner,
  parent: async (identity) =>
    overriding(await inner.parent(identity), {
      renew: async () => {
        throw new Error("the lock object is unreachable");
      },
    }),
});

/** The first PATCH is refused 401; the token exchange after it never answers (`hung` says when it is out). */
function revokedThenHungExchange(hung: () => void): (inner: typeof fetch) => typeof fetch {
  let patches = 0;
  let exchanges = 0;
  return (inner) => async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? "GET").toUpperCase();
    if (url.pathname === "/oauth/token" && ++exchanges > 1) {
      hung();
      return new Promise<Response>(() => {});
    }
    if (method === "PATCH" && ++patches === 1)
      return new Response(JSON.stringify({ statusCode: 401, error: "Unauthorized", message: "revoked" }), {
        status: 401,
        headers: { "content-type": "application/json" },
      });
    return inner(input, init);
  };
}

describe("a token exchange under a lease still in flight at the lease deadline", () => {
  it("is a lost lease, never a write that may have landed: the lease is released, not abandoned", async () => {
    const domain = freshAuth0Domain("exchange-deadline");
    await seedTenant(domain);
    const key = await appLockKey(domain);
    const plan = previewPlan(domain);
    const clock = new ManualClock();
    let out: () => void = () => {};
    const exchangeOut = new Promise<void>((resolve) => {
      out = resolve;
    });
    const run = testEngine({
      clock,
      combining: false,
      wrapLocks: parentRenewalsFail,
      wrapFetch: revokedThenHungExchange(() => out()),
    }).apply({ ...request(freshPr()), wait: true, plan });
    let settled = false;
    void run.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Time passes with the exchange unanswered, timer by timer, until the run ends.
    await exchangeOut;
    while (!settled) {
      await Promise.race([clock.untilTimer(), scheduler.wait(50)]);
      if (clock.pending.length > 0) clock.advanceToNext();
      await scheduler.wait(1);
    }
    const result = await run;

    expect(result.run.status).toBe("failed");
    const error = result.lines[0]?.error;
    expect(error?.code, JSON.stringify(error)).toBe("LOCK_LOST");
    expect(error?.detail?.outcome).toBeUndefined();
    expect(error?.message).not.toContain("may have landed");
    // Released: nothing sent under the lease can land, so nobody waits for a lock-delay.
    // The end of the lease the exchange was in flight under (token 1). The leases the run takes
    // after it (its rollback's) live while this loop moves the manual clock on, and may lapse.
    const history = (await lockStub(env, key).read({ key })).history;
    const ended = history.find(
      (h) => h.token === 1 && h.transition !== "acquired" && h.transition !== "renewed",
    );
    expect(ended).toMatchObject({ transition: "released" });
    expect(ended?.note).toBeUndefined();
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks ?? []).toEqual([]);
  });
});
