/**
 * One path for routing and for authorization (docs/security.md, "One path"): an encoded spelling of
 * a route is that route, for the router and for the route table alike; an ambiguous encoding is
 * refused 400 before anything runs.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { observedApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { previewPlan, seedTenant } from "../helpers/plans";
import { mintServiceToken, TEST_REPOSITORY } from "../helpers/tokens";
import { problem, securityEnv, send } from "./harness";

const { app, hosts } = observedApp();
let viewer: string;
let ci: string;
let admin: string;
beforeAll(async () => {
  viewer = await mintServiceToken({ role: "viewer" });
  ci = await mintServiceToken({ role: "ci", scopes: ["preview/*"] });
  admin = await mintServiceToken({ role: "admin" });
});

let nextPr = 7_100_000 + Math.floor(Math.random() * 90_000) * 10;

async function untouched(scope: string) {
  const key = scopeLockKey(TEST_REPOSITORY.id, "preview", scope);
  expect((await lockStub(env, key).read({ key })).lastToken).toBe(0);
  const address = { repository: TEST_REPOSITORY, environment: "preview", scope };
  expect((await new R2ReceiptStore(env.RECEIPTS).read(address)).etag).toBeNull();
}

describe("encoded spellings of a route are that route", () => {
  it.each(["/v1/%6Frphans", "/v1/%6frphans", "/v1/%256Frphans", "/%76%31/orphans"])(
    "GET %s with a viewer token is refused like GET /v1/orphans (403 role.admin), reading no provider",
    async (path) => {
      hosts.length = 0;
      const res = await send(app, "GET", path, { token: viewer });
      expect(res.status).toBe(403);
      expect((await problem(res)).rule).toBe("role.admin");
      expect(hosts).toEqual([]);
    },
  );

  it("GET /v1/%6Frphans with a ci token is refused 403 role.admin", async () => {
    const res = await send(app, "GET", "/v1/%6Frphans", { token: ci });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("role.admin");
  });

  it("GET /v1/%6Frphans with an admin token lists orphans, as the plain path does", async () => {
    const res = await send(app, "GET", "/v1/%6Frphans", { token: admin });
    expect(res.status).toBe(200);
  });

  it("GET /v1/scopes/preview/pr-1/%6Cedger answers as the plain ledger path (no 500)", async () => {
    const plain = await send(app, "GET", "/v1/scopes/preview/pr-1/ledger", { token: viewer });
    const encoded = await send(app, "GET", "/v1/scopes/preview/pr-1/%6Cedger", { token: viewer });
    expect(encoded.status).toBe(plain.status);
    expect(encoded.status).toBeLessThan(500);
  });

  it("a branch scope's encoded `/` stays part of the scope name", async () => {
    const res = await send(app, "GET", "/v1/scopes/preview/branch-feature%2Fx/ledger", { token: viewer });
    expect(res.status).toBe(200);
  });

  it("a lock key's encoded `/` stays part of the key", async () => {
    const key = encodeURIComponent("scope:4242/preview/pr-404");
    const res = await send(app, "GET", `/v1/locks/${key}`, { token: viewer });
    expect(res.status).toBe(200);
  });
});

describe("ambiguous encodings are refused 400 before anything runs", () => {
  it.each([
    [
      "an encoded `/` outside a scope name or key",
      "/v1%2Fscopes/preview/{scope}/apply",
      "path.encoded-slash",
    ],
    ["an encoded `/` in the environment", "/v1/scopes/pre%2Fview/{scope}/apply", "path.encoded-slash"],
    ["an encoded NUL", "/v1/scopes/preview/{scope}%00/apply", "path.control"],
    ["a segment that decodes to `..`", "/v1/scopes/%252e%252e/preview/{scope}/apply", "path.dot-segment"],
    ["a segment that decodes to `.`", "/v1/scopes/preview/%252E/{scope}/apply", "path.dot-segment"],
    ["an escape that is not UTF-8", "/v1/scopes/preview/{scope}%FF/apply", "path.encoding"],
    ["an overlong UTF-8 `/`", "/v1/scopes/preview/{scope}%C0%AF/apply", "path.encoding"],
    ["a `%` that is not an escape", "/v1/scopes/preview/{scope}%zz/apply", "path.encoding"],
    ["an encoded backslash", "/v1/scopes/preview/{scope}%5C/apply", "path.backslash"],
    ["an escape left after four decodings", "/v1/scopes/preview/{scope}%2525252541/apply", "path.encoding"],
  ])("%s: 400 %s, no run, no provider request", async (_what, template, rule) => {
    const domain = freshAuth0Domain("path");
    await seedTenant(domain);
    const scope = `pr-${++nextPr}`;
    hosts.length = 0;
    const res = await send(app, "POST", template.replace("{scope}", scope), {
      token: admin,
      body: { plan: previewPlan(domain) },
      env: testEnv(securityEnv()),
    });
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.code).toBe("VALIDATION");
    expect(body.rule).toBe(rule);
    expect(hosts).toEqual([]);
    await untouched(scope);
  });
});
