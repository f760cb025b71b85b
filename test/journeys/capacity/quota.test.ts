/**
 * A share of each list, through the HTTP door with two configured repositories (docs/design.md,
 * "A share of each list"): one repository's plan of 96 web origins is refused QUOTA_EXCEEDED from
 * the plan, before any lock and any outbound request, so the other still finds room; the same list
 * within the quota applies; and two scopes of one repository that each fit its share, queued at
 * the object's lock together, are counted together under the lease: the second is refused there,
 * with write combining (its changes come back from the holder's write) and without.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { LockState } from "../../../shared/schemas/lock";
import type { Plan } from "../../../shared/schemas/plan";
import type { RepositoryConfig } from "../../../shared/schemas/repository";
import type { RunResult } from "../../../shared/schemas/run";
import { objectHash } from "../../../workers/dashboard/object-hash";
import type { EngineOverrides } from "../../../workers/wiring/wire";
import { call, type TestApp, testApp } from "../../helpers/app";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appIdentity, appLockKey, freshPr, holdAppLock, untilWaiters } from "../../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { bearer, mintServiceToken } from "../../helpers/tokens";

const HELLO: RepositoryConfig = { ...DEFAULT_REPOSITORY, defaultBranch: "main" };
const OTHER: RepositoryConfig = {
  name: "acme/other",
  id: 700_000_000 + Math.floor(Math.random() * 1_000_000),
  defaultBranch: "main",
};
const FOREIGN = [
  "https://app.example.com",
  "https://www.example.com",
  "https://a.example.com",
  "https://b.example.com",
];

/** Every provider request an app's engine sends, by app. */
const outbound = new Map<TestApp, string[]>();
function appWith(engine: EngineOverrides = {}): TestApp {
  const sent: string[] = [];
  const app = testApp({
    engine: {
      ...engine,
      wrapFetch: (inner) => async (input, init) => {
        const req = new Request(input, init);
        sent.push(`${req.method} ${req.url}`);
        return inner(req);
      },
    },
  });
  outbound.set(app, sent);
  return app;
}

let app: TestApp;
beforeAll(() => {
  app = appWith();
});

const bindings = (extra: Record<string, string> = {}) =>
  ({ ...env, SPONSON_REPOSITORIES: JSON.stringify([HELLO, OTHER]), ...extra }) as typeof env;

async function tenant(label: string, capacity?: Record<string, unknown>) {
  const domain = freshAuth0Domain(label);
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: FOREIGN } } });
  const connection = registerConnection(`auth0-${domain}`, {
    type: "auth0",
    config: { domain, clientId: TEST_M2M.clientId },
    secrets: { clientSecret: SECRET_NAME },
    // Both repositories write through it on purpose: the list's shares are what is under test.
    repositories: "*",
    ...(capacity ? { capacity: capacity as never } : {}),
  });
  return { domain, connection };
}

/** `n` web origins of the scope on the one application. */
function origins(connection: string, n: number, label = "o"): Plan {
  return {
    version: 2,
    lines: Array.from({ length: n }, (_, i) => ({
      id: `${label}${i}`,
      op: "auth0.webOrigin",
      connection,
      params: { client: APP_CLIENT, url: `https://{scope}-${label}${i}.preview.example.com` },
    })),
  };
}

async function apply(
  repository: RepositoryConfig,
  scope: string,
  plan: Plan,
  { on = app, extra = {} }: { on?: TestApp; extra?: Record<string, string> } = {},
) {
  const res = await call(
    on,
    "POST",
    `/v1/scopes/preview/${scope}/apply?repository=${repository.name}`,
    { plan, wait: true, waitTimeoutSeconds: 60 },
    {},
    bindings(extra),
  );
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    body: (await res.json()) as never,
  };
}

const webOrigins = async (domain: string) => (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];

describe("one repository cannot fill a shared list: its share is refused", () => {
  it("acme/other's 96 web origins: 409 QUOTA_EXCEEDED from the plan, no outbound request; Hello-World then applies", async () => {
    const { domain, connection } = await tenant("quota96");
    const sent = outbound.get(app) as string[];
    const before = sent.length;
    const refused = await apply(OTHER, freshPr(), origins(connection, 96));
    expect(refused.status).toBe(409);
    expect(refused.type).toContain("application/problem+json");
    // A problem: its detail says what to do; the figures are its members.
    expect(refused.body).toMatchObject({
      code: "QUOTA_EXCEEDED",
      list: { object: `auth0:${domain}:client:${APP_CLIENT}`, op: "auth0.webOrigin" },
      quota: { share: "scope", max: 10 },
      scope: { environment: "preview", holds: 0, after: 96 },
      repository: { name: OTHER.name, holds: null },
      checked: "plan",
    });
    expect((refused.body as { detail: string }).detail).toContain("put at most 10 lines on that list");
    // Before any lock and any outbound request: not even the token exchange.
    expect(sent.slice(before)).toEqual([]);
    expect(await webOrigins(domain)).toEqual(FOREIGN);

    const hello = freshPr();
    const applied = await apply(HELLO, hello, origins(connection, 2));
    expect(applied.status).toBe(200);
    expect((applied.body as RunResult).run.status).toBe("succeeded");
    expect(await webOrigins(domain)).toHaveLength(FOREIGN.length + 2);
  });

  it("a preview of the same plan is refused alike: what apply would refuse from the plan", async () => {
    const { connection } = await tenant("quotapreview");
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${freshPr()}/preview?repository=${OTHER.name}`,
      { plan: origins(connection, 11) },
      {},
      bindings(),
    );
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "QUOTA_EXCEEDED", scope: { after: 11 }, checked: "plan" });
  });

  it("control: the same list within the quota (10 origins) applies, and Hello-World still finds room", async () => {
    const { domain, connection } = await tenant("quota10");
    const theirs = await apply(OTHER, freshPr(), origins(connection, 10));
    expect(theirs.status).toBe(200);
    expect((theirs.body as RunResult).lines.map((l) => l.result)).toEqual(Array(10).fill("created"));
    const ours = await apply(HELLO, freshPr(), origins(connection, 2));
    expect(ours.status).toBe(200);
    expect(await webOrigins(domain)).toHaveLength(FOREIGN.length + 12);
  });

  it("keeping is never refused: a scope above a quota lowered since re-applies what it holds", async () => {
    const { connection } = await tenant("quotakeep");
    const scope = freshPr();
    expect((await apply(HELLO, scope, origins(connection, 6))).status).toBe(200);
    registerConnection(connection, {
      type: "auth0",
      config: { domain: connection.slice("auth0-".length), clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      repositories: "*",
      capacity: { "auth0.webOrigin": { maxEntriesPerScope: 3 } },
    });
    const again = await apply(HELLO, scope, origins(connection, 6));
    expect(again.status).toBe(200);
    expect((again.body as RunResult).lines.map((l) => l.result)).toEqual(Array(6).fill("unchanged"));
    const grown = await apply(HELLO, scope, origins(connection, 7));
    expect(grown.status).toBe(409);
    expect(grown.body).toMatchObject({ code: "QUOTA_EXCEEDED", scope: { holds: 6, after: 7 } });
  });
});

describe("each repository's share of a list, where fill levels are shown", () => {
  it("the lock detail and the object page name each repository's share; a bound caller sees another's counted, unnamed", async () => {
    const { domain, connection } = await tenant("quotashow");
    expect((await apply(OTHER, freshPr(), origins(connection, 10))).status).toBe(200);
    expect((await apply(HELLO, freshPr(), origins(connection, 2))).status).toBe(200);
    const key = await appLockKey(domain);
    const read = async (headers: Record<string, string> = {}) => {
      const res = await call(
        app,
        "GET",
        `/v1/locks/${encodeURIComponent(key)}`,
        undefined,
        headers,
        bindings(),
      );
      expect(res.status).toBe(200);
      return ((await res.json()) as LockState).fills?.find((f) => f.op === "auth0.webOrigin");
    };
    expect(await read()).toMatchObject({
      entries: FOREIGN.length + 12,
      repositories: [
        { id: OTHER.id, name: OTHER.name, entries: 10 },
        { id: HELLO.id, name: HELLO.name, entries: 2 },
      ],
    });
    const bound = {
      authorization: `Bearer ${await mintServiceToken({ role: "ci", scopes: ["preview/*"], repository: HELLO.name })}`,
    };
    expect((await read(bound))?.repositories).toEqual([
      { id: null, entries: 10 },
      { id: HELLO.id, name: HELLO.name, entries: 2 },
    ]);
    const path = `/dashboard/objects/${await objectHash(appIdentity(domain))}`;
    const page = async (headers: Record<string, string>) =>
      (await call(app, "GET", path, undefined, headers, bindings())).text();
    expect(await page(await bearer("viewer"))).toContain(`${OTHER.name}: 10 · ${HELLO.name}: 2`);
    const seen = await page(bound);
    expect(seen).toContain(`another repository: 10 · ${HELLO.name}: 2`);
    expect(seen).not.toContain(OTHER.name);
  });
});

describe("two scopes of one repository past the plan check together: the second is refused under the lease", () => {
  const SHARE = { "auth0.webOrigin": { maxEntriesPerRepository: 12 } };

  /** A and B (8 origins each, within every share alone) queue behind the lock held by hand, A first. */
  async function race(on: TestApp, extra: Record<string, string> = {}) {
    const { domain, connection } = await tenant("quotarace", SHARE);
    const [a, b] = [freshPr(), freshPr()];
    const key = await appLockKey(domain);
    const held = await holdAppLock(domain);
    const ra = apply(HELLO, a, origins(connection, 8, "a"), { on, extra });
    await untilWaiters(key, 1);
    const rb = apply(HELLO, b, origins(connection, 8, "b"), { on, extra });
    await untilWaiters(key, 2);
    await held.release();
    return { domain, a: await ra, b: await rb, scopes: [a, b] };
  }

  it("write combining: the holder's write carries A's 8 alone, B's come back and its own check refuses them", async () => {
    const { domain, a, b } = await race(app);
    expect(a.status).toBe(200);
    expect((a.body as RunResult).run.status).toBe("succeeded");
    expect(b.status).toBe(409);
    const run = b.body as RunResult;
    expect(run.run.error).toMatchObject({
      code: "QUOTA_EXCEEDED",
      detail: {
        quota: { share: "repository", max: 12 },
        repository: { name: HELLO.name, holds: 8, after: 16 },
        checked: "lease",
      },
    });
    expect(run.lines.every((l) => l.result !== "created")).toBe(true);
    expect(await webOrigins(domain)).toHaveLength(FOREIGN.length + 8);
  });

  it("without write combining: B takes the lease after A's write and is refused there, nothing written", async () => {
    const { domain, a, b, scopes } = await race(app, {
      SPONSON_WRITE_COMBINING: JSON.stringify({ preview: false }),
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(409);
    // The repository's scopes holding the list are named, as a full list's owners are.
    expect((b.body as RunResult).run.error).toMatchObject({
      code: "QUOTA_EXCEEDED",
      detail: {
        repository: { holds: 8, after: 16 },
        checked: "lease",
        scopes: [{ scope: scopes[0], entries: 8, stale: null }],
        freeRoom: [],
      },
    });
    expect(await webOrigins(domain)).toHaveLength(FOREIGN.length + 8);
  });

  it("control: without the check under the lease both apply, and the repository holds 16 of its 12", async () => {
    const { domain, a, b } = await race(appWith({ controls: { leaseQuota: false } }));
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await webOrigins(domain)).toHaveLength(FOREIGN.length + 16);
  });
});
