/**
 * A lock object that keeps answering "overloaded" (docs/design.md, "Errors"): the client asks it
 * again OVERLOAD_ATTEMPTS times, then the caller gets a problem with a stable code it can retry on,
 * never a 500, and nothing is written to the provider (the run's reads before the lease still happen:
 * docs/design.md, "Run algorithm").
 */
import { describe, it } from "vitest";
import { OVERLOAD_ATTEMPTS } from "../../workers/locks/acquire-loop";
import type { LockTarget } from "../../workers/locks/lock-target";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { call, testApp } from "../helpers/app";
import { StepClock } from "../helpers/clock";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, providerWrites } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { previewPlan, seedTenant } from "../helpers/plans";

const overloaded = () =>
  Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), {
    overloaded: true,
    retryable: true,
  });

/**
 * Every acquire of the chosen lock throws the runtime's overloaded error (the scope lock: before the
 * run starts; the parent lock: under the scope lease); counts acquires, records provider requests.
 */
function overloadedLocks(which: "scope" | "parent") {
  const seen = { acquires: 0, providerRequests: [] as string[] };
  const engine: EngineOverrides = {
    clock: new StepClock(),
    wrapLocks: (inner) => {
      const busy = (target: LockTarget) =>
        overriding(target, {
          acquire: () => {
            seen.acquires += 1;
            return Promise.reject(overloaded());
          },
          acquireOrCombine: () => {
            seen.acquires += 1;
            return Promise.reject(overloaded());
          },
        });
      return which === "scope"
        ? { ...inner, scope: (...args) => busy(inner.scope(...args)) }
        : { ...inner, parent: async (identity) => busy(await inner.parent(identity)) };
    },
    wrapFetch: (next) => (input, init) => {
      const req = new Request(input, init);
      seen.providerRequests.push(`${req.method} ${new URL(req.url).pathname}`);
      return next(input, init);
    },
  };
  return { engine, seen };
}

describe("an overloaded lock object", () => {
  it("answers 503 LOCK_UNAVAILABLE, retriable, with Retry-After, after the client's retries", async ({
    expect,
  }) => {
    const domain = freshAuth0Domain("overload");
    await seedTenant(domain);
    const { engine, seen } = overloadedLocks("scope");
    const app = testApp({ engine });
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: previewPlan(domain),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect({ status: res.status, type: res.headers.get("content-type") }).toEqual({
      status: 503,
      type: "application/problem+json",
    });
    expect(body).toMatchObject({ status: 503, code: "LOCK_UNAVAILABLE", retriable: true });
    expect(body.detail).toMatch(/overloaded/);
    expect(body.detail).toMatch(/try again/i);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(seen.acquires).toBe(OVERLOAD_ATTEMPTS);
    // Only the reads before the lease: no write reached the provider.
    expect(seen.providerRequests.filter((r) => /^(PATCH|PUT|DELETE) /.test(r))).toEqual([]);
    expect(await providerWrites(domain)).toBe(0);
  });

  it("fails a run whose parent lock stays overloaded with 503 and Retry-After, writing nothing", async ({
    expect,
  }) => {
    const domain = freshAuth0Domain("overload");
    await seedTenant(domain);
    const { engine, seen } = overloadedLocks("parent");
    const app = testApp({ engine });
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: previewPlan(domain),
    });
    const body = (await res.json()) as {
      run: { status: string };
      lines: Array<{ error?: { code: string } }>;
    };
    expect(res.status).toBe(503);
    expect(body.run.status).toBe("failed");
    expect(body.lines.map((l) => l.error?.code)).toContain("LOCK_UNAVAILABLE");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(seen.acquires).toBeGreaterThanOrEqual(OVERLOAD_ATTEMPTS);
    expect(seen.providerRequests.filter((r) => /^(PATCH|PUT|DELETE) /.test(r))).toEqual([]);
    expect(await providerWrites(domain)).toBe(0);
  });
});
