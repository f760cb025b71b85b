/**
 * The staleness recheck (docs/design.md, "Staleness recheck"): authorization and the scope-state read happen
 * before the scope lease; under it the state is read again, and a change refuses the run before any write.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { engineDestroyRunner } from "../../workers/wiring/background";
import { apply, call, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, providerWrites, receipt, untilWaiters } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

const app = testApp();
let delivery = 0;
const event = (status: "open" | "closed", revision: number) => ({
  status,
  revision,
  deliveryId: `test-delivery-${++delivery}-${crypto.randomUUID()}`,
});

/**
 * An apply of `previewPlan(domain)` on a fresh scope, waiting for the scope lease another run
 * holds; `release` lets it in. Resolves once the apply is queued in the lock object.
 */
async function applyWaitingBehindAnotherRun(domain: string) {
  const scope = freshPr();
  const key = `scope:${DEFAULT_REPOSITORY.id}/preview/${scope}`;
  const held = await lockTarget(env, key).acquire({
    holder: "run-earlier",
    ttlMs: 60_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!held.ok) throw new Error("setup");
  const waiting = call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
    plan: previewPlan(domain),
    wait: true,
    waitTimeoutSeconds: 30,
  });
  await untilWaiters(key, 1);
  const release = () => lockStub(env, key).release({ key, holder: "run-earlier", token: held.value.token });
  return { scope, waiting, release };
}

describe("staleness recheck under the scope lease", () => {
  it("a close that lands while an apply waits for the scope lease refuses the apply with 409 and writes nothing", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const { scope, waiting, release } = await applyWaitingBehindAnotherRun(domain);
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent(event("closed", Date.now()));
    await release();
    const res = await waiting;
    expect(res.status).toBe(409);
    // Closed meanwhile: retrying would meet the closed scope, so the refusal says that.
    expect(await res.json()).toMatchObject({
      code: "CONCURRENT_MODIFICATION",
      retriable: false,
      scopeStatus: "closed",
    });
    expect(await providerWrites(domain)).toBe(0);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
  });

  it("a close and a reopen that land while an apply waits refuse it with a retriable 409: the scope is open again", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const { scope, waiting, release } = await applyWaitingBehindAnotherRun(domain);
    const closedAt = Date.now();
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent(event("closed", closedAt));
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent(event("open", closedAt + 1000));
    await release();
    const res = await waiting;
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({
      code: "CONCURRENT_MODIFICATION",
      retriable: true,
      detail: "scope changed since authorization — re-read and retry",
    });
    expect(await providerWrites(domain)).toBe(0);
    // The retry the flag promises does succeed.
    const retried = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: previewPlan(domain),
    });
    expect(retried.status).toBe(200);
  });

  it("a closed scope is never resurrected by a late apply", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent(event("closed", Date.now()));
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: previewPlan(domain) });
    expect(res.status).toBe(409);
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      code: "CONCURRENT_MODIFICATION",
      retriable: false,
      scopeStatus: "closed",
    });
    expect(problem.detail).toMatch(new RegExp(`^scope ${scope} is closed`));
    expect(problem.detail).toMatch(/Reopen the pull request to reopen the scope, then apply again/);
    expect(await providerWrites(domain)).toBe(0);
  });

  it("a queued destroy whose scope was reopened since it was enqueued is skipped, recorded, and removes nothing", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    const closedAt = Date.now();
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent(event("closed", closedAt));
    const job = {
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      revision: closedAt,
      deliveryId: "d-close",
    };
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent(event("open", closedAt + 1000));
    const outcome = await engineDestroyRunner(emulatorTransport)(testEnv(env), job);
    expect(outcome.outcome).toBe("skipped-reopened");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([
      `https://${scope}.preview.example.com/callback`,
    ]);
    const stored = await receipt("preview", scope);
    expect(stored.ledger).toHaveLength(3);
    expect(stored.runs.at(-1)).toMatchObject({
      action: "destroy",
      skipped: expect.stringContaining("skipped-reopened"),
    });
  });

  it("a queued destroy of a scope still closed removes everything the scope owns", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    const closedAt = Date.now();
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent(event("closed", closedAt));
    const outcome = await engineDestroyRunner(emulatorTransport)(testEnv(env), {
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      revision: closedAt,
      deliveryId: "d",
    });
    expect(outcome.outcome).toBe("destroyed");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
  });
});

describe("server-side policy in the engine", () => {
  const policy = (items: string[]) =>
    JSON.stringify({
      version: 1,
      environments: { preview: { parents: ["auth0:*:client:preview-app"], items } },
    });

  it("a plan writing an item outside the policy is refused 403 before any lock, naming the rule", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const bindings = { ...env, SPONSON_POLICY: policy(["https://*.allowed.example.com/*"]) } as typeof env;
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${scope}/apply`,
      { plan: previewPlan(domain) },
      {},
      bindings,
    );
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "FORBIDDEN" });
    expect(await providerWrites(domain)).toBe(0);
    expect(
      (
        await lockStub(env, `scope:186853002/preview/${scope}`).read({
          key: `scope:186853002/preview/${scope}`,
        })
      ).lastToken,
    ).toBe(0);
  });

  it("the same plan inside the policy applies", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const bindings = {
      ...env,
      SPONSON_POLICY: policy(["https://*.preview.example.com/*", "https://*.preview.example.com"]),
    } as typeof env;
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${freshPr()}/apply`,
      { plan: previewPlan(domain) },
      {},
      bindings,
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { run: { status: string } }).run.status).toBe("succeeded");
  });
});
