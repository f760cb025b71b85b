/**
 * A Turnstile hostname admits every name under it (docs/design.md, "Security model"), so a public
 * suffix in a widget's list (`vercel.app`, `pages.dev`, `netlify.app`, `com`) lets any stranger's
 * site there run the widget. The URL shape check refuses such a line (403, rule
 * `urlChecks.publicSuffixWildcard`) before any lease and any outbound request, for preview and
 * apply alike; a preview's own host under that suffix goes through.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { turnstileWidgetWith } from "../adapters/turnstile/turnstile-widget";
import { call, observedApp } from "../helpers/app";
import { connectionOf } from "../helpers/connections";
import { freshPr, receipt } from "../helpers/engine";
import { bearer } from "../helpers/tokens";

interface Refusal {
  code: string;
  refused: { line: string; op: string; item: string; rule: string; message: string }[];
}

const SUFFIXES = ["vercel.app", "pages.dev", "netlify.app", "com"];

let widgets = 0;
async function widgetPlanOf(hostnames: string[]) {
  const w = await turnstileWidgetWith(["app.example.com"]);
  widgets += 1;
  const connection = connectionOf(`turnstile-suffix-${widgets}`, {
    type: "turnstile",
    accountId: w.account,
    apiToken: { secret: "SUFFIX_TURNSTILE_TOKEN" },
  });
  const plan: Plan = {
    version: 2,
    lines: hostnames.map((hostname, i) => ({
      id: `line-${i}`,
      op: "turnstile.hostname",
      connection,
      params: { sitekey: w.sitekey, hostname },
    })),
  };
  return { w, plan, secrets: { SUFFIX_TURNSTILE_TOKEN: w.token } };
}

async function send(action: string, plan: Plan, secrets: Record<string, string>) {
  const { app, hosts } = observedApp();
  const scope = freshPr();
  const path = `/v1/scopes/preview/${scope}/${action}`;
  const res = await call(app, "POST", path, { plan }, await bearer("admin"), { ...env, ...secrets });
  return { res, hosts, scope };
}

describe("turnstile.hostname and the URL shape check", () => {
  it.each(["preview", "apply"])(
    "%s: a public suffix as a widget's hostname is refused (403) before any outbound request",
    async (action) => {
      const { w, plan, secrets } = await widgetPlanOf(SUFFIXES);
      const { res, hosts, scope } = await send(action, plan, secrets);
      const body = (await res.json()) as Refusal;
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(body.code).toBe("FORBIDDEN");
      expect(body.refused.map((r) => [r.line, r.op, r.item, r.rule])).toEqual(
        SUFFIXES.map((s, i) => [`line-${i}`, "turnstile.hostname", s, "urlChecks.publicSuffixWildcard"]),
      );
      expect(body.refused[0]?.message).toContain("covers every name under vercel.app, a public suffix");
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
      expect((await w.stored())?.domains).toEqual(["app.example.com"]);
    },
  );

  it("the control: the preview's own host under vercel.app goes through", async () => {
    const { w, plan, secrets } = await widgetPlanOf(["web-git-feat-x-acme.vercel.app"]);
    const { res } = await send("apply", plan, secrets);
    const run = (await res.json()) as RunResult;
    expect(res.status, JSON.stringify(run)).toBe(200);
    expect(run.run.status).toBe("succeeded");
    expect((await w.stored())?.domains).toEqual(["app.example.com", "web-git-feat-x-acme.vercel.app"]);
  });
});
