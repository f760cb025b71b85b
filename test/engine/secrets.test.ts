/**
 * Secrets never reach receipts, responses, lock records or identities (docs/design.md, "Vocabulary" and
 * "Security model").
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apply, call, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";

const app = testApp();

describe("secrets", () => {
  it("a lock identity that contains a registered secret refuses the line with INTERNAL and writes nothing", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const plan = previewPlan(domain);
    // The target application's id is the M2M secret: it would end up in the identity and the lock record.
    for (const line of plan.lines) line.params.client = TEST_M2M.clientSecret.replace(/[^A-Za-z0-9_-]/g, "");
    const result = await apply(app, "preview", scope, plan);
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.error?.code)).toEqual(["INTERNAL", "INTERNAL", "INTERNAL"]);
    expect(JSON.stringify(result)).not.toContain(TEST_M2M.clientSecret);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
    const locks = await (await call(app, "GET", "/v1/locks")).text();
    expect(locks).not.toContain(TEST_M2M.clientSecret);
  });

  it("after apply, destroy and the NDJSON stream, no receipt, response or lock record holds the secret", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const secret = env.AUTH0_CLIENT_SECRET as string;
    const seen: string[] = [];
    const streamed = await call(
      app,
      "POST",
      `/v1/scopes/preview/${scope}/apply`,
      { plan: previewPlan(domain) },
      {
        accept: "application/x-ndjson",
      },
    );
    seen.push(await streamed.text());
    seen.push(JSON.stringify(await receipt("preview", scope)));
    seen.push(await (await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`)).text());
    seen.push(await (await call(app, "GET", "/v1/locks")).text());
    seen.push(await (await call(app, "POST", `/v1/scopes/preview/${scope}/destroy`, {})).text());
    const objects = await env.RECEIPTS.list();
    for (const object of objects.objects)
      seen.push((await (await env.RECEIPTS.get(object.key))?.text()) ?? "");
    expect(seen.join("\n")).toContain(`https://${scope}.preview.example.com/callback`);
    for (const text of seen) expect(text).not.toContain(secret);
  });

  it("a plan that still carries a provider block with a secret written inline is refused without echoing it", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = {
      ...previewPlan(domain),
      providers: { auth0: { type: "auth0", domain, clientSecret: "inline-value-in-the-pr" } },
    };
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, { plan });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe("VALIDATION");
    expect(problem.detail).not.toContain("inline-value-in-the-pr");
  });
});
