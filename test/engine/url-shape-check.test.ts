/**
 * The preview-URL shape check in the service (docs/design.md, "Security model"): on by default in
 * every environment, for preview and apply, before any lease and before any outbound request. A
 * refusal lists every refused line in one answer; an environment of the write policy may opt out
 * of one rule (`urlChecks`), and only of that rule.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { call, observedApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { auth0Plan, SECRET_NAME, seedTenant } from "../helpers/plans";
import { bearer } from "../helpers/tokens";

interface Refusal {
  code: string;
  detail: string;
  refused: { line: string; op: string; item: string; rule: string; message: string }[];
}

async function send(action: string, plan: Plan, bindings = env) {
  const { app, hosts } = observedApp();
  const scope = freshPr();
  const res = await call(
    app,
    "POST",
    `/v1/scopes/preview/${scope}/${action}`,
    { plan },
    await bearer("admin"),
    bindings,
  );
  return { res, hosts, scope };
}

async function planOf(urls: string[]): Promise<Plan> {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  return auth0Plan(
    domain,
    urls.map((url, i) => ({ id: `line-${i}`, op: "auth0.callbackUrl", url })),
  );
}

const SUFFIX_WILDCARDS = [
  "https://*.vercel.app/callback",
  "https://*.netlify.app/callback",
  "https://*.pages.dev/callback",
  "https://*.github.io/callback",
  "https://*.web.app/callback",
  "https://*.herokuapp.com/callback",
  "https://*-site.netlify.app/callback",
  "https://*.com/callback",
];

describe("a wildcard over a public suffix", () => {
  it.each(["preview", "apply"])(
    "%s: every such line is refused in one answer (403), with why and what to write instead; no outbound request, no receipt",
    async (action) => {
      const plan = await planOf([...SUFFIX_WILDCARDS, "https://*.preview.example.com/callback"]);
      const { res, hosts, scope } = await send(action, plan);
      expect(res.status).toBe(403);
      const body = (await res.json()) as Refusal;
      expect(body.code).toBe("FORBIDDEN");
      expect(body.refused.map((r) => [r.line, r.item, r.rule])).toEqual(
        SUFFIX_WILDCARDS.map((item, i) => [`line-${i}`, item, "urlChecks.publicSuffixWildcard"]),
      );
      expect(body.refused[0]?.op).toBe("auth0.callbackUrl");
      expect(body.refused[0]?.message).toContain("vercel.app, a public suffix");
      expect(body.detail).toContain("8 lines");
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );

  it("https://*.preview.example.com is allowed", async () => {
    const plan = await planOf(["https://*.preview.example.com/callback"]);
    const { res } = await send("apply", plan);
    const body = (await res.json()) as RunResult;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.run.status).toBe("succeeded");
  });

  it("a bare domain (Firebase's authorized domains) and an origin (bucket CORS) are judged by their host", async () => {
    const firebase = registerConnection("firebase-shape-test", {
      type: "firebase",
      config: { project: "acme-preview" },
      secrets: { serviceAccountKey: SECRET_NAME },
    });
    const s3 = registerConnection("s3-shape-test", {
      type: "s3",
      config: { region: "us-east-1", accessKeyId: "AKIAIOSFODNN7EXAMPLE" },
      secrets: { secretAccessKey: SECRET_NAME },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "domain",
          op: "firebase.authorizedDomain",
          connection: firebase,
          params: { project: "acme-preview", domain: "web.app" },
        },
        {
          id: "origin",
          op: "s3.corsOrigin",
          connection: s3,
          params: { bucket: "acme-assets", rule: "preview", origin: "https://*.pages.dev" },
        },
        {
          id: "any",
          op: "s3.corsOrigin",
          connection: s3,
          params: { bucket: "acme-assets", rule: "preview", origin: "*" },
        },
        {
          id: "http",
          op: "s3.corsOrigin",
          connection: s3,
          params: { bucket: "acme-assets", rule: "preview", origin: "http://pr-1.preview.example.com" },
        },
      ],
    };
    const { res, hosts } = await send("preview", plan);
    expect(res.status).toBe(403);
    expect(((await res.json()) as Refusal).refused.map((r) => [r.line, r.rule])).toEqual([
      ["origin", "urlChecks.publicSuffixWildcard"],
      ["any", "urlChecks.publicSuffixWildcard"],
      ["http", "urlChecks.plainHttp"],
    ]);
    expect(hosts).toEqual([]);
  });
});

describe("a bare domain the provider matches with every subdomain", () => {
  it.each(["preview", "apply"])(
    "%s: a reCAPTCHA allowed domain that is a public suffix is refused (403) before any outbound request; the same domain for Firebase, matched exactly, is not",
    async (action) => {
      const recaptcha = registerConnection("recaptcha-shape-test", {
        type: "recaptcha",
        secrets: { serviceAccountKey: SECRET_NAME },
      });
      const firebase = registerConnection("firebase-exact-shape-test", {
        type: "firebase",
        secrets: { serviceAccountKey: SECRET_NAME },
      });
      const domain = (id: string, value: string, connection = recaptcha): Plan["lines"][number] =>
        connection === recaptcha
          ? {
              id,
              op: "recaptcha.domain",
              connection,
              params: { project: "acme-preview", siteKey: "6LcPreviews", domain: value },
            }
          : {
              id,
              op: "firebase.authorizedDomain",
              connection,
              params: { project: "acme-preview", domain: value },
            };
      const plan: Plan = {
        version: 2,
        lines: [
          domain("vercel", "vercel.app"),
          domain("web", "web.app"),
          domain("own", "{scope}.preview.example.com"),
          domain("exact", "web.app", firebase),
        ],
      };
      const { res, hosts, scope } = await send(action, plan);
      expect(res.status).toBe(403);
      const body = (await res.json()) as Refusal;
      expect(body.code).toBe("FORBIDDEN");
      expect(body.refused.map((r) => [r.line, r.op, r.item, r.rule])).toEqual([
        ["vercel", "recaptcha.domain", "vercel.app", "urlChecks.publicSuffixWildcard"],
        ["web", "recaptcha.domain", "web.app", "urlChecks.publicSuffixWildcard"],
      ]);
      expect(body.refused[0]?.message).toContain("admits its subdomains");
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );
});

describe("plain http", () => {
  it.each(["preview", "apply"])(
    "%s: http:// is refused (403) before any outbound request",
    async (action) => {
      const plan = await planOf(["http://{scope}.preview.example.com/callback"]);
      const { res, hosts } = await send(action, plan);
      expect(res.status).toBe(403);
      expect(((await res.json()) as Refusal).refused.map((r) => r.rule)).toEqual(["urlChecks.plainHttp"]);
      expect(hosts).toEqual([]);
    },
  );

  it("loopback over http is allowed", async () => {
    const plan = await planOf([
      "http://localhost:3000/callback",
      "http://127.0.0.1:8080/cb",
      "http://[::1]:3000/cb",
    ]);
    const { res } = await send("apply", plan);
    const body = (await res.json()) as RunResult;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.run.status).toBe("succeeded");
  });
});

describe("an environment opts out per rule in the write policy", () => {
  const policy = (urlChecks: object) =>
    JSON.stringify({
      version: 1,
      environments: {
        preview: {
          parents: ["auth0:*:client:*"],
          items: ["https://\\*.vercel.app/*", "http://*.preview.example.com/*"],
          urlChecks,
        },
      },
    });

  it("publicSuffixWildcard: false admits *.vercel.app there, and http:// is still refused", async () => {
    const bindings = { ...env, SPONSON_POLICY: policy({ publicSuffixWildcard: false }) };
    const allowed = await send("apply", await planOf(["https://*.vercel.app/callback"]), bindings);
    expect(allowed.res.status, await allowed.res.clone().text()).toBe(200);
    const refused = await send("apply", await planOf(["http://a.preview.example.com/cb"]), bindings);
    expect(refused.res.status).toBe(403);
    expect(((await refused.res.json()) as Refusal).refused.map((r) => r.rule)).toEqual([
      "urlChecks.plainHttp",
    ]);
  });

  it("plainHttp: false admits http:// there, and *.vercel.app is still refused", async () => {
    const bindings = { ...env, SPONSON_POLICY: policy({ plainHttp: false }) };
    const allowed = await send("apply", await planOf(["http://a.preview.example.com/cb"]), bindings);
    expect(allowed.res.status, await allowed.res.clone().text()).toBe(200);
    const refused = await send("apply", await planOf(["https://*.vercel.app/callback"]), bindings);
    expect(refused.res.status).toBe(403);
    expect(((await refused.res.json()) as Refusal).refused.map((r) => r.rule)).toEqual([
      "urlChecks.publicSuffixWildcard",
    ]);
  });

  it("another environment keeps every check", async () => {
    const bindings = {
      ...env,
      SPONSON_POLICY: JSON.stringify({
        version: 1,
        environments: {
          preview: {
            parents: ["*"],
            items: ["https://\\*.vercel.app/*"],
            urlChecks: { publicSuffixWildcard: false },
          },
          staging: { parents: ["auth0:*:client:*"], items: ["https://\\*.vercel.app/*"] },
        },
      }),
    };
    const { app } = observedApp();
    const res = await call(
      app,
      "POST",
      `/v1/scopes/staging/${freshPr()}/preview`,
      { plan: await planOf(["https://*.vercel.app/callback"]) },
      await bearer("admin"),
      bindings,
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as Refusal).refused.map((r) => r.rule)).toEqual([
      "urlChecks.publicSuffixWildcard",
    ]);
  });
});
