/**
 * An apply with no lines on a scope that owns entries is refused (docs/design.md, "Empty plans"):
 * 400 EMPTY_PLAN before any lease or write, unless the body says `allowEmpty: true`; `destroy` is
 * the way to remove everything. The check is made on the receipt read before the lease and again
 * on the one read under it, so entries saved in between are not removed either.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { RunResult } from "../../shared/schemas/run";
import type { LockProvider } from "../../workers/engine/deps";
import { lockStub } from "../../workers/locks/lock-target";
import { apply, call, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, providerWrites, receipt } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const app = testApp();
const EMPTY = { version: 2 as const, lines: [] };

async function appliedScope() {
  const domain = freshAuth0Domain("empty");
  await seedTenant(domain);
  const scope = freshPr();
  expect((await apply(app, "preview", scope, previewPlan(domain))).run.status).toBe("succeeded");
  return { domain, scope };
}

const callbacks = async (domain: string) => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
const lockHistory = async (scope: string) => {
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  return (await lockStub(env, key).read({ key })).history.length;
};

describe("an apply with an empty plan", () => {
  it("on a scope that owns entries is refused 400 EMPTY_PLAN before any lease; everything stays", async () => {
    const { domain, scope } = await appliedScope();
    const before = {
      writes: await providerWrites(domain),
      runs: (await receipt("preview", scope)).runs.length,
    };
    const leases = await lockHistory(scope);
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: EMPTY });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe("EMPTY_PLAN");
    expect(problem.detail).toContain("allowEmpty");
    expect(problem.detail).toContain("destroy");
    expect(await providerWrites(domain)).toBe(before.writes);
    expect((await receipt("preview", scope)).runs.length).toBe(before.runs);
    expect((await receipt("preview", scope)).ledger).toHaveLength(3);
    expect(await lockHistory(scope)).toBe(leases);
    expect(await callbacks(domain)).toContain(`https://${scope}.preview.example.com/callback`);
  });

  it("with allowEmpty: true removes what the scope owns", async () => {
    const { domain, scope } = await appliedScope();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: EMPTY,
      allowEmpty: true,
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.map((l) => l.result)).toEqual(["removed", "removed", "removed"]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
    expect(await callbacks(domain)).not.toContain(`https://${scope}.preview.example.com/callback`);
  });

  it("control: on a scope that owns nothing it succeeds", async () => {
    const result = await apply(app, "preview", freshPr(), EMPTY);
    expect(result.run.status).toBe("succeeded");
  });

  it("entries saved between the read before the lease and the lease: refused under it, nothing removed", async () => {
    const domain = freshAuth0Domain("empty");
    await seedTenant(domain);
    const scope = freshPr();
    let raced = 0;
    // Just before the empty apply asks for the scope lease, another run applies and releases it.
    const racing = (inner: LockProvider): LockProvider => ({
      ...inner,
      scope: (...args) => {
        const target = inner.scope(...args);
        return new Proxy(target, {
          get(t, prop) {
            const value: unknown = Reflect.get(t, prop, t);
            if (prop !== "acquire" || typeof value !== "function") return value;
            return async (...a: unknown[]) => {
              if (raced++ === 0) await apply(testApp(), "preview", scope, previewPlan(domain));
              return value.apply(t, a);
            };
          },
        });
      },
    });
    const engine = testEngine({ wrapLocks: racing });
    const request = { repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan: EMPTY };
    await expect(engine.apply(request)).rejects.toMatchObject({ code: "EMPTY_PLAN" });
    expect(raced).toBe(1);
    expect((await receipt("preview", scope)).ledger).toHaveLength(3);
    expect(await callbacks(domain)).toContain(`https://${scope}.preview.example.com/callback`);
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    expect((await lockStub(env, key).read({ key })).held).toBe(false);
  });
});
