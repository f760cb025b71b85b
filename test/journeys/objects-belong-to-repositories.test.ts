/**
 * Objects belong to repositories (docs/design.md, "Objects belong to repositories"): with two
 * configured repositories on one Auth0 tenant, a repository's CI token can write only through a
 * connection that names its repository, and only into the objects that connection names. Every
 * foreign write is refused before any lock and any provider request; each has a control in which
 * the owning repository's same request succeeds. Both kinds of CI token: a `ci` service token bound
 * to a repository, and a GitHub OIDC token of a pull-request job.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import type { RunResult } from "../../shared/schemas/run";
import type { LockProvider } from "../../workers/engine/deps";
import { call, type TestApp, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { SECRET_NAME, TEST_M2M } from "../helpers/plans";
import {
  githubIssuer,
  mintServiceToken,
  pullRequestClaims,
  TEST_AUDIENCE,
  type TestGithubIssuer,
} from "../helpers/tokens";

// Fresh ids per run: scope state objects and receipts outlive one test file.
const base = 600_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
const A: RepositoryConfig = { name: "acme/web", id: base + 1, defaultBranch: "main" };
const B: RepositoryConfig = { name: "acme/api", id: base + 2, defaultBranch: "main" };

/** One tenant, one application per repository (the issue's case: B's users' codes at stake). */
const domain = freshAuth0Domain("bind");
const WEB_APP = "web-app";
const API_APP = "api-app";
const identity = (client: string) => `auth0:${domain}:client:${client}`;

const auth0 = (extra: Record<string, unknown>) => ({
  type: "auth0",
  environments: ["preview"],
  config: { domain, clientId: TEST_M2M.clientId },
  secrets: { clientSecret: SECRET_NAME },
  ...extra,
});

/** The operator's connections: each repository's own, one shared on purpose, one left unbound. */
const CONNECTIONS = {
  "auth0-web": auth0({ repositories: [A.name], parents: [identity(WEB_APP)] }),
  "auth0-api": auth0({ repositories: [B.name], parents: [identity(API_APP)] }),
  "auth0-shared": auth0({ repositories: "*" }),
  "auth0-unbound": auth0({}),
};

const bindings = (repositories: RepositoryConfig[]) =>
  ({
    ...env,
    SPONSON_REPOSITORIES: JSON.stringify(repositories),
    SPONSON_AUDIENCE: TEST_AUDIENCE,
    SPONSON_CONNECTIONS: JSON.stringify(CONNECTIONS),
  }) as typeof env;
const TWO = bindings([A, B]);

const plan = (connection: string, client: string, url: string, id = "callback"): Plan => ({
  version: 2,
  lines: [{ id, op: "auth0.callbackUrl", connection, params: { client, url } }],
});

let issuer: TestGithubIssuer;
let app: TestApp;
/** Every provider request the engine sends, and every lock it asks for. */
const outbound: string[] = [];
const locks: string[] = [];

function countingLocks(inner: LockProvider): LockProvider {
  return {
    scope: (repositoryId, environment, scope) => {
      locks.push(`scope:${repositoryId}/${environment}/${scope}`);
      return inner.scope(repositoryId, environment, scope);
    },
    parent: (id) => {
      locks.push(id);
      return inner.parent(id);
    },
    holdsScope: (...args) => {
      locks.push("holdsScope");
      return inner.holdsScope(...args);
    },
  };
}

beforeAll(async () => {
  issuer = await githubIssuer();
  app = testApp({
    auth: { fetch: issuer.fetch },
    engine: {
      wrapLocks: countingLocks,
      wrapFetch: (inner) => async (input, init) => {
        outbound.push(new Request(input, init).url);
        return inner(input, init);
      },
    },
  });
  const empty = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [WEB_APP]: empty, [API_APP]: empty } });
});

type TokenKind = "service token" | "GitHub pull-request token";
const KINDS: Array<{ kind: TokenKind; pr: number }> = [
  { kind: "service token", pr: 5 },
  { kind: "GitHub pull-request token", pr: 6 },
];

/** A CI token of `repository` for pull request `pr`, of either kind. */
async function tokenOf(kind: TokenKind, repository: RepositoryConfig, pr: number): Promise<string> {
  return kind === "service token"
    ? mintServiceToken({ role: "ci", scopes: [`preview/pr-${pr}`], repository: repository.name })
    : issuer.mint(pullRequestClaims(pr, repository));
}

async function run(
  action: "apply" | "preview",
  token: string,
  pr: number,
  body: { plan: Plan },
  bound = TWO,
): Promise<Response> {
  return call(
    app,
    "POST",
    `/v1/scopes/preview/pr-${pr}/${action}`,
    body,
    { authorization: `Bearer ${token}` },
    bound,
  );
}

/** The request is refused with nothing sent and no lock asked for; returns the problem. */
async function refusedUntouched(response: Promise<Response>, status = 403) {
  const sent = outbound.length;
  const asked = locks.length;
  const res = await response;
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(outbound.slice(sent), "no provider request").toEqual([]);
  expect(locks.slice(asked), "no lock asked for").toEqual([]);
  return body;
}

const callbacksOf = async (client: string) => (await auth0Client(domain, client))?.callbacks ?? [];

describe.each(KINDS)("a foreign write with a $kind", ({ kind, pr }) => {
  const aUrl = `https://pr-${pr}.web.preview.example.com/cb`;
  const bUrl = `https://pr-${pr}.api.preview.example.com/cb`;

  it("A through B's connection: 403 CONNECTION_NOT_BOUND naming both, before any lock or request; B's same request succeeds", async () => {
    const foreign = plan("auth0-api", API_APP, aUrl);
    const problem = await refusedUntouched(run("apply", await tokenOf(kind, A, pr), pr, { plan: foreign }));
    expect(problem).toMatchObject({
      code: "CONNECTION_NOT_BOUND",
      connection: "auth0-api",
      repository: A.name,
      reason: "other-repositories",
      refused: [{ line: "callback", connection: "auth0-api", reason: "other-repositories" }],
    });
    expect(problem.detail).toMatch(/connection "auth0-api" is bound to other repositories, not acme\/web/);
    // Which repository it is bound to is B's to know, not A's (docs/security.md, "Repository isolation").
    expect(JSON.stringify(problem)).not.toContain(B.name);
    expect(await callbacksOf(API_APP)).not.toContain(aUrl);

    // Control: the repository the connection names sends the same plan (its own URL) and it lands.
    const res = await run("apply", await tokenOf(kind, B, pr), pr, {
      plan: plan("auth0-api", API_APP, bUrl),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as RunResult).run).toMatchObject({
      status: "succeeded",
      repository: { id: B.id },
    });
    expect(await callbacksOf(API_APP)).toContain(bUrl);
  });

  it("A through its own connection into B's application: 403 FORBIDDEN (connection.parents); into its own it succeeds", async () => {
    const problem = await refusedUntouched(
      run("apply", await tokenOf(kind, A, pr), pr, { plan: plan("auth0-web", API_APP, aUrl) }),
    );
    expect(problem).toMatchObject({
      code: "FORBIDDEN",
      rule: "connection.parents",
      identity: identity(API_APP),
      refused: [{ line: "callback", rule: "connection.parents" }],
    });
    expect(await callbacksOf(API_APP)).not.toContain(aUrl);

    const res = await run("apply", await tokenOf(kind, A, pr), pr, {
      plan: plan("auth0-web", WEB_APP, aUrl),
    });
    expect(res.status).toBe(200);
    expect(await callbacksOf(WEB_APP)).toContain(aUrl);
  });

  it("either repository through a connection that names none: 403 CONNECTION_NOT_BOUND (unbound); with one repository configured it succeeds", async () => {
    const url = `https://pr-${pr}.unbound.preview.example.com/cb`;
    for (const repository of [A, B]) {
      const problem = await refusedUntouched(
        run("apply", await tokenOf(kind, repository, pr), pr, {
          plan: plan("auth0-unbound", WEB_APP, url, "u"),
        }),
      );
      expect(problem).toMatchObject({
        code: "CONNECTION_NOT_BOUND",
        connection: "auth0-unbound",
        repository: repository.name,
        reason: "unbound",
      });
      expect(problem.detail).toMatch(/names no repository/);
    }
    expect(await callbacksOf(WEB_APP)).not.toContain(url);

    // Control: the service configured for A alone — nothing changes, no field needed.
    const res = await run(
      "apply",
      await tokenOf(kind, A, pr),
      pr,
      { plan: plan("auth0-unbound", WEB_APP, url, "u") },
      bindings([A]),
    );
    expect(res.status).toBe(200);
    expect(await callbacksOf(WEB_APP)).toContain(url);
  });

  it("a preview says which lines would be refused and why, and reads nothing; A's own line alone previews", async () => {
    const mixed: Plan = {
      version: 2,
      lines: [
        ...plan("auth0-web", WEB_APP, aUrl, "own").lines,
        ...plan("auth0-api", API_APP, aUrl, "theirs").lines,
        ...plan("auth0-unbound", API_APP, `${aUrl}/unbound`, "nobodys").lines,
      ],
    };
    const problem = await refusedUntouched(run("preview", await tokenOf(kind, A, pr), pr, { plan: mixed }));
    expect(problem.code).toBe("CONNECTION_NOT_BOUND");
    expect(problem.refused).toEqual([
      expect.objectContaining({ line: "theirs", connection: "auth0-api", reason: "other-repositories" }),
      expect.objectContaining({ line: "nobodys", connection: "auth0-unbound", reason: "unbound" }),
    ]);
    expect(problem.detail).toMatch(/line "theirs".*line "nobodys"/s);

    const own = await run("preview", await tokenOf(kind, A, pr), pr, {
      plan: plan("auth0-web", WEB_APP, `${aUrl}2`),
    });
    expect(own.status).toBe(200);
    // Its other lines are the scope's entries from the tests before (would-remove).
    const lines = ((await own.json()) as RunResult).lines;
    expect(lines.find((l) => l.id === "callback")).toMatchObject({ result: "would-create" });
  });

  it('a connection shared on purpose ("*"): both repositories write through it', async () => {
    for (const [repository, label] of [
      [A, "web"],
      [B, "api"],
    ] as const) {
      const url = `https://pr-${pr}.shared-${label}.preview.example.com/cb`;
      const res = await run("apply", await tokenOf(kind, repository, pr), pr, {
        plan: plan("auth0-shared", WEB_APP, url, "shared"),
      });
      expect(res.status, repository.name).toBe(200);
      expect(await callbacksOf(WEB_APP)).toContain(url);
    }
  });
});
