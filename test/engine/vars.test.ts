/**
 * Values from CI (docs/design.md, "Plans and connections"): a request's `vars` fill `{vars.<name>}`
 * in the item param of a line (the URL, origin or domain written), and nowhere else — never a
 * connection, an op, or a param that names the provider object (a client id, a bucket, which
 * becomes a host). The resolved item goes through the shape check and the write policy like any
 * item, before any lease and before any outbound request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import { call, observedApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, auth0Connection, auth0Plan, SECRET_NAME, seedTenant } from "../helpers/plans";
import { bearer } from "../helpers/tokens";

type Problem = { status: number; code: string; detail: string; var?: string; vars?: string[] };

async function send(action: string, body: object, bindings = env) {
  const { app, hosts } = observedApp();
  const scope = freshPr();
  const res = await call(
    app,
    "POST",
    `/v1/scopes/preview/${scope}/${action}`,
    body,
    await bearer("admin"),
    bindings,
  );
  return { res, hosts, scope };
}

async function tenantPlan(url: string, params: Record<string, string> = {}) {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  const plan = auth0Plan(domain, [{ id: "callback", op: "auth0.callbackUrl", url }]);
  Object.assign(plan.lines[0]?.params ?? {}, params);
  return plan;
}

const DEPLOY_URL = "https://my-app-git-feat-x.vercel.app";

describe("a var fills the item", () => {
  it.each(["preview", "apply"])("%s: {vars.url} becomes the URL the deploy step printed", async (action) => {
    const plan = await tenantPlan("{vars.url}/callback");
    const { res } = await send(action, { plan, vars: { url: DEPLOY_URL } });
    const body = (await res.json()) as RunResult;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.lines[0]?.key).toBe(`${DEPLOY_URL}/callback`);
  });

  it("a var and the other placeholders mix, and JSON-ish braces are still left alone", async () => {
    const plan = await tenantPlan("https://{vars.app_name}-pr-{pr}.preview.example.com/cb?state={%22a%22:1}");
    const { res, scope } = await send("preview", { plan, vars: { app_name: "web" } });
    const body = (await res.json()) as RunResult;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.lines[0]?.key).toBe(`https://web-${scope}.preview.example.com/cb?state={%22a%22:1}`);
  });
});

describe("an undefined var is refused 400 naming it, before anything runs", () => {
  it.each(["preview", "apply"])("%s: {vars.url} with no vars", async (action) => {
    const plan = await tenantPlan("{vars.url}/callback");
    const { res, hosts, scope } = await send(action, { plan });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Problem;
    expect(body.code).toBe("VALIDATION");
    expect(body.detail).toContain("{vars.url}");
    expect(body.vars).toEqual(["url"]);
    expect(hosts).toEqual([]);
    expect((await receipt("preview", scope)).runs).toEqual([]);
  });

  it("every undefined var is named in one answer; a defined one is not", async () => {
    const plan = await tenantPlan("https://{vars.a}.{vars.b}.{vars.c}.preview.example.com/cb");
    const { res } = await send("preview", { plan, vars: { b: "x" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).vars).toEqual(["a", "c"]);
  });

  it("a placeholder that is not a var name ({vars.URL}) is refused, not written as text", async () => {
    const plan = await tenantPlan("https://{vars.URL}.preview.example.com/cb");
    const { res, hosts } = await send("preview", { plan, vars: { url: "x" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).detail).toContain("{vars.URL}");
    expect(hosts).toEqual([]);
  });
});

describe("a var can never become a host, a connection or an op", () => {
  it("a var in the param naming the provider object (Auth0's client id) is refused: no outbound request", async () => {
    const plan = await tenantPlan("https://pr-1.preview.example.com/cb", { client: "{vars.client}" });
    const { res, hosts } = await send("apply", { plan, vars: { client: APP_CLIENT } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Problem;
    expect(body.code).toBe("VALIDATION");
    expect(body.detail).toContain("params.client");
    expect(hosts).toEqual([]);
  });

  it("a var in an S3 line's bucket, which names the request's host, is refused: no outbound request", async () => {
    const connection = registerConnection("s3-vars-test", {
      type: "s3",
      config: { region: "us-east-1", accessKeyId: "AKIAIOSFODNN7EXAMPLE" },
      secrets: { secretAccessKey: SECRET_NAME },
    });
    const plan = {
      version: 2,
      lines: [
        {
          id: "cors",
          op: "s3.corsOrigin",
          connection,
          params: { bucket: "{vars.bucket}", rule: "preview", origin: "https://pr-1.preview.example.com" },
        },
      ],
    };
    const { res, hosts } = await send("apply", { plan, vars: { bucket: "attacker-bucket" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).detail).toContain("params.bucket");
    expect(hosts).toEqual([]);
  });

  it.each([
    ["connection", { connection: "{vars.conn}" }],
    ["op", { op: "{vars.op}" }],
  ])("a var in the line's %s is refused by the plan's shape: no outbound request", async (_field, patch) => {
    const domain = freshAuth0Domain();
    const plan = auth0Plan(domain, [
      { id: "cb", op: "auth0.callbackUrl", url: "https://a.preview.example.com" },
    ]);
    Object.assign(plan.lines[0] as object, patch);
    const { res, hosts } = await send("apply", {
      plan,
      vars: { conn: auth0Connection(domain), op: "auth0.callbackUrl" },
    });
    expect(res.status).toBe(400);
    expect(hosts).toEqual([]);
  });

  it("a var whose value points the item at another host is refused by the write policy: no outbound request", async () => {
    const plan = await tenantPlan("https://{vars.host}/callback");
    const policy = JSON.stringify({
      version: 1,
      environments: {
        preview: { parents: ["auth0:*:client:*"], items: ["https://*.preview.example.com/*"] },
      },
    });
    const { res, hosts, scope } = await send(
      "apply",
      { plan, vars: { host: "attacker.example.net" } },
      { ...env, SPONSON_POLICY: policy },
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { rule: string }).rule).toBe("policy.environments.preview.items");
    expect(hosts).toEqual([]);
    expect((await receipt("preview", scope)).runs).toEqual([]);
  });

  it("a var whose value is a wildcard over a public suffix is refused by the shape check: no outbound request", async () => {
    const plan = await tenantPlan("{vars.url}/callback");
    const { res, hosts } = await send("apply", { plan, vars: { url: "https://*.vercel.app" } });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { refused: { rule: string }[] };
    expect(body.refused.map((r) => r.rule)).toEqual(["urlChecks.publicSuffixWildcard"]);
    expect(hosts).toEqual([]);
  });

  it("a var's value is not read for placeholders again", async () => {
    const plan = await tenantPlan("{vars.url}");
    const value = "https://{vars.url}.preview.example.com";
    const { res } = await send("preview", { plan, vars: { url: value } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as RunResult).lines[0]?.key).toBe(value);
  });
});

describe("the body's vars are bounded", () => {
  it.each([
    ["a name with a capital", { URL: "x" }],
    ["a name starting with a digit", { "1url": "x" }],
    ["a name of 33 characters", { [`a${"b".repeat(32)}`]: "x" }],
    ["an empty value", { url: "" }],
    ["a value of 2,001 characters", { url: "x".repeat(2_001) }],
    ["a value with a control character", { url: "https://a\n.example.com" }],
    ["33 vars", Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`v${i}`, "x"]))],
  ])("%s: 400 VALIDATION", async (_what, vars) => {
    const plan = await tenantPlan("https://a.preview.example.com/cb");
    const { res } = await send("preview", { plan, vars });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).code).toBe("VALIDATION");
  });

  it("32 vars named up to 32 characters are fine", async () => {
    const vars = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`v${i}${"x".repeat(29)}`, "x"]));
    const plan = await tenantPlan("https://a.preview.example.com/cb");
    const { res } = await send("preview", { plan, vars });
    expect(res.status).toBe(200);
  });
});
