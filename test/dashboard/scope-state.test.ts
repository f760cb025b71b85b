/** The scope ledgers section shows each scope's state as its scope-state object holds it. */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { browserRequest, session } from "./session";

const app = testApp();

async function scopeSummary(scope: string): Promise<string> {
  const viewer = await session("viewer");
  const html = await (await browserRequest(app, "GET", "/dashboard/live", { cookie: viewer.cookie })).text();
  const at = html.indexOf(`data-scope="preview/${scope}"`);
  if (at < 0) throw new Error(`${scope} is not on the page`);
  return html.slice(at, html.indexOf("</summary>", at));
}

describe("scope state on the dashboard", () => {
  it("a scope no event touched reads open with no event; after a close and a reopen, its revision and last event", async ({
    expect,
  }) => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    expect((await apply(app, "preview", scope, previewPlan(domain))).run.status).toBe("succeeded");
    const fresh = await scopeSummary(scope);
    expect(fresh).toContain('data-scope-status="open"');
    expect(fresh).toContain("no pull request event yet");

    const closedAt = Date.UTC(2026, 4, 15, 15, 21, 18);
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision: closedAt,
      deliveryId: "d-close-1",
    });
    const closed = await scopeSummary(scope);
    expect(closed).toContain('data-scope-status="closed"');
    expect(closed).toContain(`data-scope-revision="${closedAt}"`);
    expect(closed).toMatch(/last event closed <span class="mono">d-close-1<\/span>/);

    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "open",
      revision: closedAt + 60_000,
      deliveryId: "d-reopen-1",
    });
    const reopened = await scopeSummary(scope);
    expect(reopened).toContain('data-scope-status="open"');
    expect(reopened).toContain(`data-scope-revision="${closedAt + 60_000}"`);
    expect(reopened).toMatch(/last event reopened <span class="mono">d-reopen-1<\/span>/);
  });
});
