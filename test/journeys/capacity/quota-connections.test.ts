/**
 * One scope's lines on one list through two connections (docs/design.md, "A share of each list"):
 * each connection's lines are their own group write, under their own parent lease, yet the run's
 * change to the list is one. The first group decides it whole — the lines the other group writes
 * counted as gains, the entries the run retires counted out once — so a change past the
 * repository's share is refused before anything is written. Found by the quota property (seed
 * 1138339038): the second group counted the first one's additions as already held.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { RepositoryConfig } from "../../../shared/schemas/repository";
import type { RunResult } from "../../../shared/schemas/run";
import { call, testApp } from "../../helpers/app";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const HELLO: RepositoryConfig = { ...DEFAULT_REPOSITORY, defaultBranch: "main" };
const SHARE = { "auth0.webOrigin": { maxEntriesPerRepository: 5 } };
const app = testApp();
const bindings = { ...env, SPONSON_REPOSITORIES: JSON.stringify([HELLO]) } as typeof env;

/** One application reached through two connections (`c0`, `c1`), both with the repository's share. */
async function tenant(label: string) {
  const domain = freshAuth0Domain(label);
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: [] } } });
  const connection = (n: number) =>
    registerConnection(`auth0-${n}-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      repositories: "*",
      capacity: SHARE,
    });
  return { domain, c0: connection(0), c1: connection(1) };
}

const origin = (label: string) => `https://{scope}-${label}.preview.example.com`;
function plan(lines: Array<[label: string, connection: string]>): Plan {
  return {
    version: 2,
    lines: lines.map(([label, connection]) => ({
      id: label,
      op: "auth0.webOrigin",
      connection,
      params: { client: APP_CLIENT, url: origin(label) },
    })),
  };
}

async function apply(scope: string, p: Plan) {
  const res = await call(
    app,
    "POST",
    `/v1/scopes/preview/${scope}/apply?repository=${HELLO.name}`,
    { plan: p, wait: true, waitTimeoutSeconds: 60 },
    {},
    bindings,
  );
  return { status: res.status, body: (await res.json()) as RunResult };
}

const webOrigins = async (domain: string) => (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];

/**
 * The repository holds its share of 5: scope X four origins (`xs`), scope Y one (`y0`). Y's next
 * plan swaps `y0` for `lines`: two origins take the repository to 6.
 */
async function fullShare(
  label: string,
  lines: (c: { c0: string; c1: string }) => Array<[string, string]>,
  xs = ["x0", "x1", "x2", "x3"],
) {
  const t = await tenant(label);
  const [x, y] = [freshPr(), freshPr()];
  expect((await apply(x, plan(xs.map((l) => [l, t.c1])))).status).toBe(200);
  expect((await apply(y, plan([["y0", t.c0]]))).status).toBe(200);
  const before = await webOrigins(t.domain);
  expect(before).toHaveLength(xs.length + 1);
  return { ...t, y, before, swapped: await apply(y, plan(lines(t))) };
}

describe("a scope's lines on one list through two connections are one change to its share", () => {
  it("a swap of one origin for two, one through each connection: refused by the first group, nothing written", async () => {
    const { domain, y, before, swapped } = await fullShare("quota2conn", ({ c0, c1 }) => [
      ["y1", c1],
      ["y2", c0],
    ]);
    expect(swapped.status).toBe(409);
    expect(swapped.body.run.error).toMatchObject({
      code: "QUOTA_EXCEEDED",
      detail: {
        quota: { share: "repository", max: 5 },
        repository: { holds: 5, after: 6 },
        checked: "lease",
      },
    });
    expect(swapped.body.lines.every((l) => l.result !== "created")).toBe(true);
    expect(await webOrigins(domain)).toEqual(before);
    expect(await webOrigins(domain)).not.toContain(origin("y1").replace("{scope}", y));
  });

  it("control: the same swap through one connection is refused alike", async () => {
    const { domain, before, swapped } = await fullShare("quota1conn", ({ c0 }) => [
      ["y1", c0],
      ["y2", c0],
    ]);
    expect(swapped.status).toBe(409);
    expect(swapped.body.run.error).toMatchObject({
      code: "QUOTA_EXCEEDED",
      detail: { repository: { holds: 5, after: 6 }, checked: "lease" },
    });
    expect(await webOrigins(domain)).toEqual(before);
  });

  it("a swap of one for one through two connections keeps the share full and applies", async () => {
    const { domain, y, swapped } = await fullShare("quota2keep", ({ c1 }) => [["y1", c1]]);
    expect(swapped.status).toBe(200);
    expect(swapped.body.lines.map((l) => l.result)).toEqual(["created", "removed"]);
    const after = await webOrigins(domain);
    expect(after).toHaveLength(5);
    expect(after).toContain(origin("y1").replace("{scope}", y));
  });

  it("with room for both (4 of 5 held), each connection's group writes its own and the share ends full", async () => {
    const { domain, y, swapped } = await fullShare(
      "quota2both",
      ({ c0, c1 }) => [
        ["y1", c1],
        ["y2", c0],
      ],
      ["x0", "x1", "x2"],
    );
    expect(swapped.status).toBe(200);
    expect(swapped.body.lines.map((l) => l.result)).toEqual(["created", "created", "removed"]);
    const after = await webOrigins(domain);
    expect(after).toHaveLength(5);
    for (const label of ["y1", "y2"]) expect(after).toContain(origin(label).replace("{scope}", y));
  });
});
