/**
 * A repository's share of one lock's queue, through the HTTP door (docs/security.md, "Fair use"):
 * with MAX_WAITERS_PER_REPOSITORY of acme/other's runs already waiting at an Auth0 application's
 * lock, acme/other's next apply there — a bound ci token's and a pull-request job's alike — fails
 * at once 429 with the line's RATE_LIMITED rule `lock.waiters-per-repository`, nothing written.
 * The control: Hello-World's apply on the same object is queued behind them (it waits, then is
 * refused LOCK_HELD when its wait runs out), not refused for acme/other's queue.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_WAITERS_PER_REPOSITORY } from "../../durable-objects/lease-rules";
import type { RunOrigin } from "../../shared/schemas/provenance";
import type { RunResult } from "../../shared/schemas/run";
import { lockTarget } from "../../workers/locks/lock-target";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, appLockKey, untilWaiters } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { FOREIGN, OWNING, type TwoRepositories, twoRepositories } from "../helpers/two-repositories";

const TTL_MS = 60_000;
let t: TwoRepositories;
let domain: string;

function originOf(repository: { id: number; name: string }, scope: string): RunOrigin {
  return {
    repositoryId: repository.id,
    repository: repository.name,
    scope: `preview/${scope}`,
    provenance: {
      repository: repository.name,
      event: null,
      ref: null,
      pullRequest: null,
      headBranch: null,
      sha: null,
      actor: null,
      workflow: null,
      runUrl: null,
      declared: true,
    },
  };
}

const planFor = (scope: string) =>
  auth0Plan(
    domain,
    [{ id: "cb", op: "auth0.callbackUrl", url: `https://${scope}.preview.example.com/cb` }],
    "*",
  );

beforeAll(async () => {
  t = await twoRepositories();
  domain = freshAuth0Domain("wcap");
  await seedTenant(domain);
  const key = await appLockKey(domain);
  const target = lockTarget(env, key, appIdentity(domain));
  const held = await target.acquire({
    holder: "run-holding",
    ttlMs: TTL_MS,
    origin: originOf(OWNING, "pr-1"),
  });
  if (!held.ok) throw new Error(held.error.message);
  for (let i = 0; i < MAX_WAITERS_PER_REPOSITORY; i++)
    void target.acquire({
      holder: `run-queued-${i}`,
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: TTL_MS,
      origin: originOf(FOREIGN, `pr-${100 + i}`),
    });
  await untilWaiters(key, MAX_WAITERS_PER_REPOSITORY);
});

describe("acme/other's runs queued at one lock up to the cap", () => {
  it.each(["ci", "github"] as const)(
    "its next apply there with a %s token fails 429, the line RATE_LIMITED",
    async (kind) => {
      const pr = kind === "ci" ? 61 : 62;
      const res = await t.send(
        "POST",
        `/v1/scopes/preview/pr-${pr}/apply`,
        await t.token(FOREIGN, kind, pr),
        {
          plan: planFor(`pr-${pr}`),
          wait: true,
          waitTimeoutSeconds: 60,
        },
      );
      expect(res.status).toBe(429);
      const result = (await res.json()) as RunResult;
      expect(result.run.status).toBe("failed");
      expect(result.lines[0]?.error).toMatchObject({
        code: "RATE_LIMITED",
        detail: { rule: "lock.waiters-per-repository", limit: MAX_WAITERS_PER_REPOSITORY },
      });
      expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    },
  );

  it("control: Hello-World's apply there is queued behind them, and refused only when its wait runs out", async () => {
    const res = await t.send("POST", "/v1/scopes/preview/pr-71/apply", await t.token(OWNING, "ci"), {
      plan: planFor("pr-71"),
      wait: true,
      waitTimeoutSeconds: 1,
    });
    expect(res.status).toBe(409);
    const result = (await res.json()) as RunResult;
    const error = result.lines[0]?.error ?? result.run.error;
    expect(error?.code).toBe("LOCK_HELD");
  });
});
