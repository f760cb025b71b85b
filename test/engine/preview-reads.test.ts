/**
 * Fair use (docs/security.md, "Fair use"): a preview reads each provider object once for all its
 * lines, like apply, instead of once per line.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import { MAX_PLAN_OBJECTS as PREVIEW_MAX_OBJECTS } from "../../workers/engine/plan/object-limit";
import { PREVIEW_READ_CONCURRENCY } from "../../workers/engine/run/preview";
import { call, testApp } from "../helpers/app";
import { freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { APP_CLIENT, auth0Connection, auth0Plan, seedTenant, TEST_M2M } from "../helpers/plans";

const requests: string[] = [];
const inFlight = { now: 0, max: 0 };
const app = testApp({
  engine: {
    wrapFetch: (inner) => async (input, init) => {
      const request = new Request(input, init);
      requests.push(`${request.method} ${new URL(request.url).pathname}`);
      const clientRead =
        request.method === "GET" && new URL(request.url).pathname.startsWith("/api/v2/clients/");
      if (!clientRead) return inner(input, init);
      inFlight.max = Math.max(inFlight.max, ++inFlight.now);
      try {
        return await inner(input, init);
      } finally {
        inFlight.now--;
      }
    },
  },
});

/** A tenant with `count` applications and a plan with one callback line on each. */
async function manyClients(count: number) {
  const domain = freshAuth0Domain("pvmany");
  const ids = Array.from({ length: count }, (_, i) => `app-${i}`);
  const empty = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: Object.fromEntries(ids.map((id) => [id, empty])) });
  const connection = auth0Connection(domain);
  const plan = {
    version: 2,
    lines: ids.map((client, i) => ({
      id: `l${i}`,
      op: "auth0.callbackUrl",
      connection,
      params: { client, url: `https://{scope}.preview.example.com/cb-${i}` },
    })),
  };
  return { domain, plan };
}

describe("preview reads", () => {
  it("twelve lines on one Auth0 application are one read of it", async () => {
    const domain = freshAuth0Domain("pvreads");
    await seedTenant(domain, { callbacks: ["https://line-0.preview.example.com/cb"] });
    const lines = Array.from({ length: 12 }, (_, i) => ({
      id: `l${i}`,
      op: i % 2 === 0 ? "auth0.callbackUrl" : "auth0.webOrigin",
      url: i % 2 === 0 ? `https://line-${i}.preview.example.com/cb` : `https://line-${i}.preview.example.com`,
    }));
    requests.length = 0;
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/preview`, {
      plan: auth0Plan(domain, lines),
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.map((l) => l.result)).toEqual(["unchanged", ...Array(11).fill("would-create")]);
    const reads = requests.filter((r) => r === `GET /api/v2/clients/${APP_CLIENT}`);
    expect(reads).toHaveLength(1);
  });
});

describe("preview reads distinct objects a few at a time, up to a limit", () => {
  it(`twenty applications are read once each, at most ${PREVIEW_READ_CONCURRENCY} at a time and not one by one`, async () => {
    const { plan } = await manyClients(20);
    requests.length = 0;
    inFlight.max = 0;
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/preview`, { plan });
    expect(res.status, await res.clone().text()).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.map((l) => l.id)).toEqual(plan.lines.map((l) => l.id));
    expect(result.lines.every((l) => l.result === "would-create")).toBe(true);
    expect(requests.filter((r) => r.startsWith("GET /api/v2/clients/"))).toHaveLength(20);
    expect(inFlight.max).toBeLessThanOrEqual(PREVIEW_READ_CONCURRENCY);
    expect(inFlight.max).toBeGreaterThan(1);
  });

  it(`a preview over ${PREVIEW_MAX_OBJECTS + 1} distinct objects is refused 400 VALIDATION rule preview.object-limit before any provider request`, async () => {
    const { plan } = await manyClients(PREVIEW_MAX_OBJECTS + 1);
    requests.length = 0;
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/preview`, { plan });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "VALIDATION",
      rule: "preview.object-limit",
      objects: PREVIEW_MAX_OBJECTS + 1,
      limit: PREVIEW_MAX_OBJECTS,
    });
    expect(requests).toEqual([]);
  });
});
