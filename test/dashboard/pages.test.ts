/**
 * The dashboard at fleet scale: a page per run (the pull-request comment's link), a page per
 * provider object (entries, owners, foreign, orphans, its lock), filters and pages of the scope
 * list, and the configuration panel for admins. A caller bound to one repository never sees
 * another repository's runs, scopes or owners.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { objectHash } from "../../workers/dashboard/object-hash";
import { apply, call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, freshPr } from "../helpers/engine";
import { auth0Plan, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { bearer, mintServiceToken } from "../helpers/tokens";

const app = testApp();

async function page(path: string, headers?: Record<string, string>) {
  const res = await call(app, "GET", path, undefined, headers ?? (await bearer("viewer")));
  return { status: res.status, html: await res.text() };
}

const boundTo = async (repository: string) => ({
  authorization: `Bearer ${await mintServiceToken({ role: "ci", scopes: ["preview/*"], repository })}`,
});

async function appliedScope() {
  const domain = freshAuth0Domain();
  await seedTenant(domain, { callbacks: ["https://someone-elses.example.com/callback"] });
  const scope = freshPr();
  const result = await apply(app, "preview", scope, previewPlan(domain));
  return { domain, scope, run: result.run.id };
}

describe("the run page", () => {
  it("shows the run's outcome and the entries it added, each linked to its object's page", async () => {
    const { domain, scope, run } = await appliedScope();
    const { status, html } = await page(`/dashboard/runs/${run}?environment=preview&scope=${scope}`);
    expect(status).toBe(200);
    expect(html).toContain(`data-run="${run}"`);
    expect(html).toContain('data-status="succeeded"');
    expect(html).toContain(`https://${scope}.preview.example.com/callback`);
    expect(html).toContain(`/dashboard/objects/${await objectHash(appIdentity(domain))}`);
  });

  it("says where the run came from: its pull request and CI run as links, its actor, declared", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const runUrl = "https://github.com/Codertocat/Hello-World/actions/runs/77/attempts/2";
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: previewPlan(domain),
      provenance: { actor: "octocat", pullRequest: 9, runUrl },
    });
    const { run } = (await res.json()) as { run: { id: string } };
    const { html } = await page(`/dashboard/runs/${run.id}?environment=preview&scope=${scope}`);
    expect(html).toContain(`href="https://github.com/${DEFAULT_REPOSITORY.name}/pull/9"`);
    expect(html).toContain(`href="${runUrl}"`);
    expect(html).toContain("octocat");
    expect(html).toContain("declared");
  });

  it("an unknown run is 404; a token bound to another repository gets 404, not the run", async () => {
    const { scope, run } = await appliedScope();
    expect((await page(`/dashboard/runs/run-nope?environment=preview&scope=${scope}`)).status).toBe(404);
    const other = await page(
      `/dashboard/runs/${run}?environment=preview&scope=${scope}&repository=${DEFAULT_REPOSITORY.name}`,
      await boundTo("someone/else"),
    );
    expect(other.status).toBe(404);
    expect(other.html).not.toContain(`https://${scope}.preview.example.com`);
  });
});

describe("the object page", () => {
  it("lists the object's entries with their owning scopes, the foreign one, and its lock", async () => {
    const { domain, scope } = await appliedScope();
    const { status, html } = await page(`/dashboard/objects/${await objectHash(appIdentity(domain))}`);
    expect(status).toBe(200);
    expect(html).toContain(`data-identity="${appIdentity(domain)}"`);
    const row = html.slice(html.indexOf(`data-key="https://${scope}.preview.example.com/callback"`));
    expect(row.slice(0, 600)).toContain(`preview/${scope}`);
    expect(html).toContain('data-key="https://someone-elses.example.com/callback" data-foreign="true"');
    expect(html).toContain('data-held="false"');
    // A viewer is told orphans are an admin's view; an admin gets the provider's answer.
    expect(html).toContain("Admins see the entries at the provider");
    const admin = await page(
      `/dashboard/objects/${await objectHash(appIdentity(domain))}`,
      await bearer("admin"),
    );
    expect(admin.html).toContain("No orphan");
  });

  it("a token bound to another repository is told the object is not there, nothing of its owners", async () => {
    const { domain, scope } = await appliedScope();
    const { status, html } = await page(
      `/dashboard/objects/${await objectHash(appIdentity(domain))}`,
      await boundTo("someone/else"),
    );
    expect(status).toBe(404);
    expect(html).not.toContain(`preview/${scope}`);
    expect(html).not.toContain(`https://${scope}.preview.example.com`);
  });

  it("an object the service does not know is 404", async () => {
    expect((await page(`/dashboard/objects/${"0".repeat(32)}`)).status).toBe(404);
  });
});

describe("filters and pages", () => {
  it("?scope= shows only the matching scopes, and the live fragment keeps the filter", async () => {
    const a = await appliedScope();
    const b = await appliedScope();
    const { html } = await page(`/dashboard?scope=${a.scope}`);
    expect(html).toContain(`data-scope="preview/${a.scope}"`);
    expect(html).not.toContain(`data-scope="preview/${b.scope}"`);
    const live = await page(`/dashboard/live?scope=${b.scope}`);
    expect(live.html).toContain(`data-scope="preview/${b.scope}"`);
    expect(live.html).not.toContain(`data-scope="preview/${a.scope}"`);
  });

  it("a token bound to another repository sees none of this repository's scopes, whatever it asks", async () => {
    const { scope } = await appliedScope();
    const { status, html } = await page(
      `/dashboard?repository=${DEFAULT_REPOSITORY.name}&scope=${scope}`,
      await boundTo("someone/else"),
    );
    expect(status).toBe(200);
    expect(html).not.toContain(`data-scope="preview/${scope}"`);
  });

  it("?environment= that nothing has shows an empty list; a page past the end shows the last", async () => {
    expect((await page("/dashboard?environment=staging-nothing")).html).toContain(
      "No scope matches this filter.",
    );
    expect((await page("/dashboard?page=9999")).status).toBe(200);
  });

  it("the configuration panel names each environment's URL shape opt-out", async () => {
    const policy = JSON.stringify({
      version: 1,
      environments: { preview: { parents: ["*"], items: ["*"], urlChecks: { plainHttp: false } } },
    });
    const res = await call(app, "GET", "/dashboard", undefined, await bearer("admin"), {
      ...env,
      SPONSON_POLICY: policy,
    });
    const html = await res.text();
    expect(html).toContain('data-url-check-opt-out="preview"');
    expect(html).toMatch(/preview<\/code> opts out of the URL shape check: plainHttp/);
  });

  it("admins see the configuration panel; viewers do not", async () => {
    expect((await page("/dashboard", await bearer("admin"))).html).toContain('id="config"');
    expect((await page("/dashboard")).html).not.toContain('id="config"');
  });
});

describe("the scope list in pages", () => {
  it("31 scopes: 30 on the first page, newest first, with a link to the second, which has the last", async () => {
    const prefix = `branch-pages${crypto.randomUUID().slice(0, 8)}-`;
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = auth0Plan(domain, [
      { id: "cb", op: "auth0.callbackUrl", url: "https://{branch}.preview.example.com/cb" },
    ]);
    for (let i = 0; i < 31; i++) await apply(app, "preview", `${prefix}${String(i).padStart(2, "0")}`, plan);
    const first = await page(`/dashboard?scope=${prefix}`);
    const shown = (html: string) => html.split(`data-scope="preview/${prefix}`).length - 1;
    expect(shown(first.html)).toBe(30);
    expect(first.html).toContain('data-page="1" data-pages="2"');
    expect(first.html).toContain(`href="/dashboard?scope=${prefix}&amp;page=2"`);
    const second = await page(`/dashboard?scope=${prefix}&page=2`);
    expect(shown(second.html)).toBe(1);
    expect(second.html).toContain(`data-scope="preview/${prefix}00"`);
  });
});
