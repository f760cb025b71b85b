/**
 * Repository isolation everywhere a token reads (docs/security.md, "Repository isolation"): a token
 * bound to one repository sees that repository's scopes, runs and locks only — on the dashboard,
 * its live sections, the lock list, a lock's detail and the lock feed — and of a parent lock shared
 * with another repository only its own runs. An unbound viewer (the control) sees both.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { LockState } from "../../shared/schemas/lock";
import { SESSION_COOKIE } from "../../workers/auth/dashboard-session";
import { OTHER_REPOSITORY_HOLDER } from "../../workers/lock-views/repository-view";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, appLockKey, freshPr } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { mintServiceToken } from "../helpers/tokens";
import { ORIGIN } from "./session";

const OTHER = { name: "acme/other-api", id: 5151 };
const bindings = () =>
  testEnv({ ...env, SPONSON_REPOSITORIES: JSON.stringify([DEFAULT_REPOSITORY, OTHER]) } as typeof env);
const app = testApp();

const own = { scope: freshPr(), run: `run-own-${crypto.randomUUID().slice(0, 8)}` };
const other = { scope: freshPr(), run: `run-other-${crypto.randomUUID().slice(0, 8)}` };
const ownKey = `scope:${DEFAULT_REPOSITORY.id}/preview/${own.scope}`;
const otherKey = `scope:${OTHER.id}/preview/${other.scope}`;
const hex = () => crypto.randomUUID().replaceAll("-", "");
/**
 * The application this repository's scope wrote to (so the object is one it uses, docs/security.md,
 * "What a repository sees of another"), held now by the other repository's run: a shared object.
 */
const ownDomain = freshAuth0Domain("iso");
let sharedParent: string;
let objectHash: string;
let otherObject: { key: string; identity: string };
const otherActor = `actor-${hex().slice(0, 8)}`;
const ownParent = `_locks/${hex()}`;
let bound: string;
let unbound: string;

async function get(path: string, token: string, cookie = false) {
  const headers: Record<string, string> = cookie
    ? { authorization: "", cookie: `${SESSION_COOKIE}=${token}` }
    : { authorization: `Bearer ${token}` };
  if (!cookie) return call(app, "GET", path, undefined, headers, bindings());
  const ctx = createExecutionContext();
  const res = await app.request(
    `${ORIGIN}${path}`,
    { headers: { cookie: headers.cookie ?? "" } },
    bindings(),
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

beforeAll(async () => {
  // A receipt (scope, run) in each repository, through the API as an admin naming the repository.
  sharedParent = await appLockKey(ownDomain);
  objectHash = sharedParent.slice("_locks/".length);
  otherObject = { key: sharedParent, identity: appIdentity(ownDomain) };
  for (const [repository, scope, domain] of [
    [DEFAULT_REPOSITORY.name, own.scope, ownDomain],
    [OTHER.name, other.scope, freshAuth0Domain("iso")],
  ] as const) {
    await seedTenant(domain);
    const plan = previewPlan(domain, [repository]);
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${scope}/apply?repository=${repository}`,
      { plan },
      {},
      bindings(),
    );
    if (res.status !== 200) throw new Error(`apply ${repository}: ${res.status} ${await res.text()}`);
  }
  // Held locks: each repository's run holds its scope; the other's run holds a parent both share.
  for (const [key, holder] of [
    [ownKey, own.run],
    [otherKey, other.run],
    [ownParent, own.run],
  ] as const) {
    const grant = await lockTarget(env, key).acquire({
      holder: holder,
      ttlMs: 600_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    if (!grant.ok) throw new Error(grant.error.message);
    // A read settles the held-lock index, which the acquire writes in the background.
    await lockStub(env, key).read({ key });
  }
  const held = await lockTarget(env, otherObject.key, otherObject.identity).acquire({
    holder: other.run,
    ttlMs: 600_000,
    origin: {
      repositoryId: OTHER.id,
      repository: OTHER.name,
      scope: `preview/${other.scope}`,
      provenance: {
        repository: OTHER.name,
        event: "pull_request",
        ref: "refs/pull/7/merge",
        pullRequest: 7,
        headBranch: "feat",
        sha: null,
        actor: otherActor,
        workflow: "preview",
        runUrl: "https://github.com/acme/other-api/actions/runs/5/attempts/1",
        declared: false,
      },
    },
  });
  if (!held.ok) throw new Error(held.error.message);
  await lockStub(env, otherObject.key).read({ key: otherObject.key });
  bound = await mintServiceToken({ role: "viewer", repository: DEFAULT_REPOSITORY.name, sub: "team-viewer" });
  unbound = await mintServiceToken({ role: "viewer" });
});

describe("a viewer bound to one repository", () => {
  it("GET /v1/locks lists its scope lock and the parent its run holds, nothing of the other repository", async () => {
    const { locks } = (await (await get("/v1/locks", bound)).json()) as { locks: LockState[] };
    const keys = locks.map((l) => l.key);
    expect(keys).toContain(ownKey);
    expect(keys).toContain(ownParent);
    expect(keys).not.toContain(otherKey);
    expect(keys).not.toContain(sharedParent);
    expect(JSON.stringify(locks)).not.toContain(other.run);
  });

  it("GET /v1/locks/{key} of the other repository's scope lock is 404", async () => {
    const res = await get(`/v1/locks/${encodeURIComponent(otherKey)}`, bound);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(other.run);
  });

  it("GET /v1/locks/{key} of a parent held by the other repository's run hides that run", async () => {
    const res = await get(`/v1/locks/${encodeURIComponent(sharedParent)}`, bound);
    expect(res.status).toBe(200);
    const state = (await res.json()) as LockState;
    expect(state.held).toBe(true);
    expect(state.holder).toBe(OTHER_REPOSITORY_HOLDER);
    expect(JSON.stringify(state)).not.toContain(other.run);
  });

  it("GET /v1/locks/{key} of a parent held by the other repository's run says nothing of its provenance", async () => {
    const res = await get(`/v1/locks/${encodeURIComponent(otherObject.key)}`, bound);
    const state = (await res.json()) as LockState;
    expect(state.heldBy).toMatchObject({ run: OTHER_REPOSITORY_HOLDER, actor: null, pullRequest: null });
    const text = JSON.stringify(state);
    for (const secret of [other.run, otherActor, OTHER.name, "actions/runs/5"])
      expect(text).not.toContain(secret);
  });

  it("the object page of a parent held by the other repository's run hides its run id, as the API does", async () => {
    const res = await get(`/dashboard/objects/${objectHash}`, bound, true);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("held by");
    expect(html).toContain("(another repository&#39;s run)");
    for (const secret of [other.run, otherActor, OTHER.name, "actions/runs/5"])
      expect(html).not.toContain(secret);
  });

  it.each(["/dashboard", "/dashboard/live"])("%s shows no other repository", async (path) => {
    const res = await get(path, bound, true);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(own.scope);
    expect(html).toContain(own.run);
    expect(html).not.toContain(other.scope);
    expect(html).not.toContain(other.run);
    expect(html).not.toContain(OTHER.name);
  });

  it("the lock feed tells a bound socket of its repository's scope locks, not the other's", async () => {
    const res = await app.request(
      `${ORIGIN}/dashboard/feed`,
      { headers: { cookie: `${SESSION_COOKIE}=${bound}`, origin: ORIGIN, upgrade: "websocket" } },
      bindings(),
    );
    expect(res.status).toBe(101);
    const ws = res.webSocket as WebSocket;
    const keys: string[] = [];
    const hello = new Promise<void>((resolve) => {
      ws.addEventListener("message", (event) => {
        const m = JSON.parse(String(event.data)) as { type: string; key?: string };
        if (m.type === "hello") resolve();
        if (m.key) keys.push(m.key);
      });
    });
    ws.accept();
    await hello;
    // The other repository's change first, then ours: once ours arrives, the other's would have too.
    const otherScope = `scope:${OTHER.id}/preview/${freshPr()}`;
    const ownScope = `scope:${DEFAULT_REPOSITORY.id}/preview/${freshPr()}`;
    expect(
      (
        await lockTarget(env, otherScope).acquire({
          holder: "run-x",
          ttlMs: 30_000,
          wait: false,
          waitTimeoutMs: 0,
        })
      ).ok,
    ).toBe(true);
    const seen = new Promise<void>((resolve) => {
      ws.addEventListener("message", (event) => {
        if (String(event.data).includes(ownScope)) resolve();
      });
    });
    expect(
      (
        await lockTarget(env, ownScope).acquire({
          holder: "run-y",
          ttlMs: 30_000,
          wait: false,
          waitTimeoutMs: 0,
        })
      ).ok,
    ).toBe(true);
    await seen;
    expect(keys).toContain(ownScope);
    expect(keys).not.toContain(otherScope);
    ws.close(1000, "done");
  });
});

describe("control: an unbound viewer", () => {
  it("sees both repositories' locks and scopes", async () => {
    const { locks } = (await (await get("/v1/locks", unbound)).json()) as { locks: LockState[] };
    expect(locks.map((l) => l.key)).toEqual(expect.arrayContaining([ownKey, otherKey, sharedParent]));
    const html = await (await get("/dashboard", unbound, true)).text();
    expect(html).toContain(other.scope);
    expect(html).toContain(other.run);
    // Its holder with a link to the pull request and the CI run.
    const page = await (await get(`/dashboard/objects/${objectHash}`, unbound, true)).text();
    expect(page).toContain(`href="https://github.com/${OTHER.name}/pull/7"`);
    expect(page).toContain(`href="https://github.com/acme/other-api/actions/runs/5/attempts/1"`);
    expect(page).toContain(otherActor);
  });
});
