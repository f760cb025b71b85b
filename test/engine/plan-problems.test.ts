/**
 * A plan refused before anything runs says everything wrong with it at once (docs/design.md, "Run
 * algorithm", step 1): one 400 with every problem of every line, in line order, a duplicate line
 * id among them; and a value from CI is shown as it was filled in, with the fix.
 */
import { describe, expect, it } from "vitest";
import { call, observedApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { auth0Plan, seedTenant } from "../helpers/plans";

type Problem = {
  code: string;
  detail: string;
  problems?: Array<{ line: string | null; path: string; message: string }>;
  vars?: string[];
};

async function send(action: "apply" | "preview", body: object) {
  const { app, hosts } = observedApp();
  const scope = freshPr();
  const res = await call(app, "POST", `/v1/scopes/preview/${scope}/${action}`, body);
  return { res, hosts, scope };
}

async function tenantPlan(lines: Array<{ id: string; op: string; url: string }>) {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  return auth0Plan(domain, lines);
}

describe("a plan's problems, all in one 400", () => {
  it.each(["preview", "apply"] as const)(
    "%s: six problems on five lines, a duplicate id among them, in line order; nothing is sent",
    async (action) => {
      const plan = await tenantPlan([
        { id: "cb", op: "auth0.callbackUrl", url: "{vars.url}/callback" },
        { id: "typo", op: "auth0.callbakUrl", url: "https://a.preview.example.com/cb" },
        { id: "cb", op: "auth0.logoutUrl", url: "https://b.preview.example.com/" },
        { id: "missing", op: "auth0.webOrigin", url: "https://{vars.host}" },
        { id: "space", op: "auth0.callbackUrl", url: "https://c.preview.example.com/a b" },
      ]);
      (plan.lines[4]?.params as Record<string, string>).client = "not a client";
      const { res, hosts, scope } = await send(action, { plan, vars: { url: " https://x.vercel.app" } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as Problem;
      expect(body.code).toBe("VALIDATION");
      expect(body.problems?.map((p) => [p.line, p.path])).toEqual([
        ["cb", "lines.0.params.url"],
        ["typo", "lines.1.op"],
        ["cb", "lines.2.id"],
        ["missing", "lines.3.params.url"],
        ["space", "lines.4.params.client"],
        ["space", "lines.4.params.url"],
      ]);
      expect(body.vars).toEqual(["host"]);
      // The value as filled in, where it came from, and what to write instead.
      const first = body.problems?.[0]?.message ?? "";
      expect(first).toContain('" https://x.vercel.app/callback"');
      expect(first).toContain('{vars.url} = " https://x.vercel.app"');
      expect(first).toContain('remove the spaces around it: "https://x.vercel.app/callback"');
      expect(body.detail).toContain("6 problems");
      expect(body.detail).toContain('line "typo"');
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );

  it("one problem reads as before: the line, the param and what is wrong", async () => {
    const plan = await tenantPlan([
      { id: "only", op: "auth0.callbackUrl", url: "https://d.preview.example.com/cb" },
    ]);
    (plan.lines[0]?.params as Record<string, string>).client = "not a client";
    const { res } = await send("preview", { plan });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Problem;
    expect(body.detail).toMatch(/^line "only" params\.client: "not a client" is not an Auth0 client id/);
    expect(body.problems).toHaveLength(1);
  });
});

describe("a trailing slash from CI, as deploy steps print it", () => {
  const url = "https://web-git-feature-x-acme.vercel.app/";
  const trimmed = "https://web-git-feature-x-acme.vercel.app";
  const lines = [
    { id: "callback", op: "auth0.callbackUrl", url: "{vars.url}/callback" },
    { id: "logout", op: "auth0.logoutUrl", url: "{vars.url}" },
    { id: "origin", op: "auth0.webOrigin", url: "{vars.url}" },
  ];

  it.each(["preview", "apply"] as const)(
    "%s: the callback's `//` and the web origin's slash are refused before anything is sent",
    async (action) => {
      const plan = await tenantPlan(lines);
      const { res, hosts, scope } = await send(action, { plan, vars: { url } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as Problem;
      expect(body.problems?.map((p) => [p.line, p.path])).toEqual([
        ["callback", "lines.0.params.url"],
        ["origin", "lines.2.params.url"],
      ]);
      const [callback, origin] = (body.problems ?? []).map((p) => p.message);
      expect(callback).toContain(
        `"${trimmed}//callback" (from {vars.url} = "${url}") has an empty path segment`,
      );
      expect(callback).toContain(`remove the trailing slash: "${trimmed}/callback" (--var url="${trimmed}")`);
      expect(origin).toContain("is not an origin");
      expect(origin).toContain(`remove the trailing slash: "${trimmed}" (--var url="${trimmed}")`);
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );

  it("a web origin with a path is refused: an origin has no path", async () => {
    const plan = await tenantPlan([{ id: "origin", op: "auth0.webOrigin", url: `${trimmed}/foo` }]);
    const { res } = await send("preview", { plan });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).detail).toContain(`an origin has no path: "${trimmed}"`);
  });

  it("control: without the slash the same plan is previewed", async () => {
    const plan = await tenantPlan(lines);
    const { res } = await send("preview", { plan, vars: { url: trimmed } });
    expect(res.status).toBe(200);
  });
});
