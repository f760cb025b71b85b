/**
 * Fair use (docs/security.md, "Fair use"): an apply reaches at most MAX_PLAN_OBJECTS distinct
 * provider objects, the preview's limit. One more is refused 400 VALIDATION rule
 * `apply.object-limit` before any lock, provider request or receipt write; the control at the
 * limit itself applies.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { RunResult } from "../../shared/schemas/run";
import { MAX_PLAN_OBJECTS } from "../../workers/engine/plan/object-limit";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { call, testApp } from "../helpers/app";
import { freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { auth0Connection, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";

const requests: string[] = [];
const app = testApp({
  engine: {
    wrapFetch: (inner) => (input, init) => {
      requests.push(new Request(input, init).url);
      return inner(input, init);
    },
  },
});

/** A tenant with `count` applications and a plan with one callback line on each: `count` objects. */
async function planOnClients(count: number) {
  const domain = freshAuth0Domain("aplimit");
  const ids = Array.from({ length: count }, (_, i) => `app-${i}`);
  const empty = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: Object.fromEntries(ids.map((id) => [id, empty])) });
  const connection = auth0Connection(domain);
  return {
    version: 2,
    lines: ids.map((client, i) => ({
      id: `l${i}`,
      op: "auth0.callbackUrl",
      connection,
      params: { client, url: `https://{scope}.preview.example.com/cb-${i}` },
    })),
  };
}

describe("an apply's distinct objects", () => {
  it(`an apply over ${MAX_PLAN_OBJECTS + 1} distinct objects is refused 400 apply.object-limit, nothing locked, read or written`, async () => {
    const plan = await planOnClients(MAX_PLAN_OBJECTS + 1);
    const scope = freshPr();
    requests.length = 0;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "VALIDATION",
      rule: "apply.object-limit",
      objects: MAX_PLAN_OBJECTS + 1,
      limit: MAX_PLAN_OBJECTS,
    });
    expect(requests).toEqual([]);
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    expect((await lockStub(env, key).read({ key })).lastToken).toBe(0);
    expect((await new R2ReceiptStore(env.RECEIPTS).read(scopeAddress("preview", scope))).etag).toBeNull();
  });

  it(`control: an apply of exactly ${MAX_PLAN_OBJECTS} objects writes them all`, async () => {
    const plan = await planOnClients(MAX_PLAN_OBJECTS);
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, { plan });
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.filter((l) => l.result === "created")).toHaveLength(MAX_PLAN_OBJECTS);
  });
});
