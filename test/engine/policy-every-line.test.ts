/**
 * A policy refusal lists every refused line in one answer (docs/design.md, "Write policy"): the
 * line id, op, item and rule of each, in `refused`, and a message naming them all — for apply and
 * preview alike, still 403 FORBIDDEN, before any lease or provider request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, observedApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { auth0Plan, seedTenant } from "../helpers/plans";

const policy = JSON.stringify({
  version: 1,
  environments: {
    preview: {
      parents: ["auth0:*:client:*"],
      items: ["https://*.preview.example.com/*"],
      ops: ["auth0.callbackUrl", "auth0.logoutUrl"],
    },
  },
});

interface Refusal {
  code: string;
  detail: string;
  rule: string;
  refused: Array<{ line: string; op: string; item: string; rule: string }>;
}

function mixedPlan(domain: string) {
  return auth0Plan(domain, [
    { id: "ok", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
    { id: "elsewhere", op: "auth0.callbackUrl", url: "https://evil.example.net/callback" },
    { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
    { id: "logout", op: "auth0.logoutUrl", url: "https://other.example.org/" },
  ]);
}

describe("a policy refusal", () => {
  it.each(["apply", "preview"])(
    "%s: 403 FORBIDDEN listing every refused line, nothing sent",
    async (action) => {
      const domain = freshAuth0Domain("every");
      await seedTenant(domain);
      const { app, hosts } = observedApp();
      const scope = freshPr();
      const res = await call(
        app,
        "POST",
        `/v1/scopes/preview/${scope}/${action}`,
        { plan: mixedPlan(domain) },
        {},
        { ...env, SPONSON_POLICY: policy },
      );
      expect(res.status).toBe(403);
      const problem = (await res.json()) as Refusal;
      expect(problem.code).toBe("FORBIDDEN");
      expect(problem.refused).toEqual([
        {
          line: "elsewhere",
          op: "auth0.callbackUrl",
          item: "https://evil.example.net/callback",
          rule: "policy.environments.preview.items",
        },
        {
          line: "origin",
          op: "auth0.webOrigin",
          item: `https://${scope}.preview.example.com`,
          rule: "policy.environments.preview.ops",
        },
        {
          line: "logout",
          op: "auth0.logoutUrl",
          item: "https://other.example.org/",
          rule: "policy.environments.preview.items",
        },
      ]);
      for (const line of ["elsewhere", "origin", "logout"]) expect(problem.detail).toContain(`"${line}"`);
      expect(problem.detail).not.toContain('"ok"');
      // The first refusal's own fields stay where clients read them.
      expect(problem.rule).toBe("policy.environments.preview.items");
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );

  it("control: a plan the policy admits in full is not refused", async () => {
    const domain = freshAuth0Domain("every");
    await seedTenant(domain);
    const { app } = observedApp();
    const plan = auth0Plan(domain, [
      { id: "ok", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
    ]);
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${freshPr()}/apply`,
      { plan },
      {},
      {
        ...env,
        SPONSON_POLICY: policy,
      },
    );
    expect(res.status).toBe(200);
  });
});
