/**
 * Write combining at a list's cap (docs/design.md, "Lists at their cap"): a waiter found gone right
 * before the write (its removal had made room) refuses only the waiters that no longer fit, never
 * the holder, whose own changes fit.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import type { FaultHook } from "../../../workers/engine/deps";
import { lockStub } from "../../../workers/locks/lock-target";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appLockKey, freshPr, holdAppLock, untilWaiters } from "../../helpers/engine";
import { APP_CLIENT, auth0Plan, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const filled = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `https://${prefix}-${i}.example.com`);

const scopeRequest = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});
const request = (scope: string, plan: Plan) => ({ ...scopeRequest(scope), plan });

const originPlan = (domain: string, url: string) =>
  auth0Plan(domain, [{ id: "origin", op: "auth0.webOrigin", url }]);
const ownOrigin = (scope: string) => `https://${scope}.preview.example.com`;

async function tenantWith(webOrigins: string[]) {
  const domain = freshAuth0Domain("ccap");
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: { callbacks: [], allowed_logout_urls: [], web_origins: webOrigins } },
  });
  return domain;
}

/** Runs queued in this order behind a lock held by hand, then let go: the first is the holder. */
async function queued(domain: string, runs: Array<() => Promise<RunResult>>) {
  const key = await appLockKey(domain);
  const held = await holdAppLock(domain);
  const started: Array<Promise<RunResult | unknown>> = [];
  for (const [i, run] of runs.entries()) {
    started.push(run().catch((err: unknown) => err));
    await untilWaiters(key, i + 1);
  }
  await held.release();
  return (await Promise.all(started)) as RunResult[];
}

/** Records the longest `web_origins` any PATCH of the client carried: what the provider was sent. */
function patchedOrigins(longest: { n: number }) {
  return (inner: typeof fetch): typeof fetch =>
    async (input, init) => {
      const req = new Request(input, init);
      if (req.method === "PATCH") {
        const body = (await req.clone().json()) as { web_origins?: string[] };
        longest.n = Math.max(longest.n, body.web_origins?.length ?? 0);
      }
      return inner(req);
    };
}

describe("a combined write at the cap", () => {
  it("holder and three waiters whose writes together cross the cap: the one that does not fit is refused alone, the rest written in one write, the list never past 100", async () => {
    const kept = filled(97, "kept");
    const domain = await tenantWith(kept);
    const [h, w1, w2, w3] = [freshPr(), freshPr(), freshPr(), freshPr()];
    const own = originPlan(domain, "https://{scope}.preview.example.com");
    // W2 wants two entries: with H's and W1's, 101 of 100. W3's one still fits after W2 is out.
    const two = auth0Plan(domain, [
      { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
      { id: "origin2", op: "auth0.webOrigin", url: "https://{scope}.two.example.com" },
    ]);
    const longest = { n: 0 };
    const engine = () => testEngine({ combining: true, wrapFetch: patchedOrigins(longest) });
    const [rh, r1, r2, r3] = await queued(domain, [
      () => engine().apply(request(h, own)),
      () => engine().apply(request(w1, own)),
      () => engine().apply(request(w2, two)),
      () => engine().apply(request(w3, own)),
    ]);
    expect(rh?.run.status).toBe("succeeded");
    // W1 and W3 were written by the holder's one write; W2 came back and was refused by its own check.
    for (const r of [r1, r3]) {
      expect(r?.run.status).toBe("succeeded");
      expect(r?.lines.map((l) => [l.result, l.writtenBy])).toEqual([["created", rh?.run.id]]);
    }
    expect(r2?.run.status).toBe("failed");
    expect(r2?.run.error?.code).toBe("LIST_FULL");
    expect(r2?.run.error?.detail).toMatchObject({ cap: 100, entries: 100, after: 102 });
    const origins = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect(origins).toHaveLength(100);
    expect([...origins].sort()).toEqual([...kept, ownOrigin(h), ownOrigin(w1), ownOrigin(w3)].sort());
    // What the provider was sent, not what the service recorded: never past the cap.
    expect(longest.n).toBe(100);
  }, 90_000);

  it("control: without the check the combined write carries 102 origins and the provider refuses it", async () => {
    const domain = await tenantWith(filled(97, "kept"));
    const [h, w1, w2, w3] = [freshPr(), freshPr(), freshPr(), freshPr()];
    const own = originPlan(domain, "https://{scope}.preview.example.com");
    const two = auth0Plan(domain, [
      { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
      { id: "origin2", op: "auth0.webOrigin", url: "https://{scope}.two.example.com" },
    ]);
    const longest = { n: 0 };
    const engine = () =>
      testEngine({ combining: true, controls: { listCaps: false }, wrapFetch: patchedOrigins(longest) });
    const results = await queued(domain, [
      () => engine().apply(request(h, own)),
      () => engine().apply(request(w1, own)),
      () => engine().apply(request(w2, two)),
      () => engine().apply(request(w3, own)),
    ]);
    // The combined write was sent past the cap and refused: every waiter's changes went back and
    // each wrote its own (none by the holder); W2's own write is Auth0's refusal, mid-run.
    expect(longest.n).toBe(102);
    expect(results.map((r) => [r.run.status, r.lines.map((l) => l.writtenBy ?? null)])).toEqual([
      ["succeeded", [null]],
      ["succeeded", [null]],
      ["failed", [null, null]],
      ["succeeded", [null]],
    ]);
    expect(results[2]?.run.error?.code).toBe("PROVIDER_ERROR");
    expect(results[2]?.run.error?.message).toMatch(/Array is too long \(101\), maximum 100/);
    expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toHaveLength(100);
  }, 90_000);

  it("a waiter whose removal made room is found gone: the waiter that needed the room is refused alone, the holder is written", async () => {
    const kept = filled(98, "kept");
    const domain = await tenantWith(kept);
    const [h, w1, w2] = [freshPr(), freshPr(), freshPr()];
    const own = originPlan(domain, "https://{scope}.preview.example.com");
    // W1 owns one entry (99 of 100), and its destroy will queue to remove it.
    expect((await testEngine().apply(request(w1, own))).run.status).toBe("succeeded");
    // Right before the holder's write (its decisions made with W1's removal), W1's scope lease goes.
    let dropped = false;
    const dropW1: FaultHook = async (point) => {
      if (point !== "after-intent" || dropped) return;
      dropped = true;
      const scopeKey = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", w1);
      await lockStub(env, scopeKey).forceRelease({
        key: scopeKey,
        reason: "test: waiter gone",
        actor: "admin",
      });
    };
    const [rh, , r2] = await queued(domain, [
      () => testEngine({ combining: true, faults: dropW1 }).apply(request(h, own)),
      () => testEngine({ combining: true }).destroy(scopeRequest(w1)),
      () => testEngine({ combining: true }).apply(request(w2, own)),
    ]);
    expect(dropped).toBe(true);
    expect(rh?.run.status).toBe("succeeded");
    expect(r2?.run.status).toBe("failed");
    expect(r2?.run.error?.code).toBe("LIST_FULL");
    const origins = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect(origins).toEqual([...kept, ownOrigin(w1), ownOrigin(h)]);
  }, 90_000);
});
