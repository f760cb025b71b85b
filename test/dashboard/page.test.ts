/** What a viewer sees: held locks with their waiters, ledgers and runs; everything escaped; no secrets. */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { formatMs } from "../../workers/dashboard/format";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, appLockKey, freshPr, holdAppLock, receipt, untilWaiters } from "../helpers/engine";
import { freshScopeKey } from "../helpers/locks";
import { previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";
import { browserRequest, session } from "./session";

const app = testApp();

describe("the dashboard page", () => {
  it("a viewer sees a held parent lock with its identity, holder, countdown and waiter; no release form", async ({
    expect,
  }) => {
    const domain = freshAuth0Domain();
    const held = await holdAppLock(domain, "run-holder-1");
    const waiting = lockTarget(env, held.key, appIdentity(domain)).acquire({
      holder: "run-waiter-2",
      ttlMs: 30_000,
      wait: true,
      waitTimeoutMs: 60_000,
    });
    await untilWaiters(held.key, 1);

    const viewer = await session("viewer");
    const res = await browserRequest(app, "GET", "/dashboard", { cookie: viewer.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'nonce-[^']+'/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    const card = html.slice(html.indexOf(`data-key="${held.key}"`));
    expect(card).toContain(appIdentity(domain));
    expect(card).toContain("run-holder-1");
    expect(card).toMatch(/data-expires-at="\d+"/);
    expect(card).toContain("run-waiter-2");
    expect(html).not.toContain("Force release");
    expect(html).not.toContain(viewer.token);

    await held.release();
    const granted = await waiting;
    expect(granted.ok).toBe(true);
    if (granted.ok)
      await lockStub(env, held.key).release({
        key: held.key,
        holder: "run-waiter-2",
        token: granted.value.token,
      });
  });

  it("an admin gets a force-release form per lock, with the session's CSRF token", async ({ expect }) => {
    const key = freshScopeKey("dash");
    const grant = await lockTarget(env, key).acquire({
      holder: "run-admin-view",
      ttlMs: 30_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    expect(grant.ok).toBe(true);
    // The listing's index entry is written behind the answer; a read of the lock waits for it.
    await lockStub(env, key).read({ key });
    const admin = await session("admin");
    const html = await (await browserRequest(app, "GET", "/dashboard/live", { cookie: admin.cookie })).text();
    const card = html.slice(html.indexOf(`data-key="${key}"`));
    expect(card).toContain('action="/dashboard/locks/release"');
    expect(card).toContain(`name="csrf" value="${admin.csrf}"`);
    expect(card).toContain(`name="key" value="${key}"`);
    expect(html).not.toContain(admin.token);
    await lockStub(env, key).forceRelease({ key, reason: "test cleanup", actor: "test" });
  });

  it("holder names are escaped, never markup", async ({ expect }) => {
    const key = freshScopeKey("xss");
    const holder = `<img src=x onerror="alert(1)">`;
    const grant = await lockTarget(env, key).acquire({
      holder,
      ttlMs: 30_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    expect(grant.ok).toBe(true);
    // The listing's index entry is written behind the answer; a read of the lock waits for it.
    await lockStub(env, key).read({ key });
    const viewer = await session("viewer");
    const html = await (
      await browserRequest(app, "GET", "/dashboard/live", { cookie: viewer.cookie })
    ).text();
    expect(html).not.toContain(holder);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    await lockStub(env, key).forceRelease({ key, reason: "test cleanup", actor: "test" });
  });

  it("after an apply, the ledger shows each URL in its provider object with the run, and the run's status", async ({
    expect,
  }) => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const result = await apply(app, "preview", "pr-4711", previewPlan(domain));
    expect(result.run.status).toBe("succeeded");
    const viewer = await session("viewer");
    const html = await (await browserRequest(app, "GET", "/dashboard", { cookie: viewer.cookie })).text();
    const scope = html.slice(html.indexOf('data-scope="preview/pr-4711"'));
    expect(scope).toContain(appIdentity(domain));
    expect(scope).toContain(result.run.id);
    for (const line of result.lines) expect(scope).toContain(line.id);
    const run = html.slice(html.indexOf(`data-run="${result.run.id}"`));
    expect(run).toContain("succeeded");
    // The provider block's secret never reaches the page, nor does the M2M client's id/secret pair.
    expect(html).not.toContain(TEST_M2M.clientSecret);
  });

  it("a recent run shows where its time went: the total, its main parts, and every part and count on hover", async ({
    expect,
  }) => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const result = await apply(app, "preview", scope, previewPlan(domain));
    const { runs } = await receipt("preview", scope);
    const recorded = runs.find((r) => r.id === result.run.id);
    if (!recorded?.timings || !recorded.counts) throw new Error("the run was recorded without timings");
    const viewer = await session("viewer");
    const html = await (await browserRequest(app, "GET", "/dashboard", { cookie: viewer.cookie })).text();
    const row = html.slice(html.indexOf(`data-run="${result.run.id}"`));
    const cell = row.slice(
      row.indexOf('<td class="took"'),
      row.indexOf("</td>", row.indexOf('<td class="took"')),
    );
    expect(cell).toContain(`title="authorization ${formatMs(recorded.timings.authorization)}`);
    expect(cell).toContain(`provider ${formatMs(recorded.timings.provider)}`);
    expect(cell).toContain(
      `${recorded.counts.providerCalls} provider calls, ${recorded.counts.lockOps} lock operations`,
    );
    expect(cell).toContain(`>${formatMs(recorded.timings.total)}<`);
  });

  it("a run whose changes another run's write carried says which run wrote them", async ({ expect }) => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const [holder, waiter] = [freshPr(), freshPr()];
    const plan = previewPlan(domain);
    const key = await appLockKey(domain);
    const held = await holdAppLock(domain);
    const first = apply(app, "preview", holder, plan, { wait: true, waitTimeoutSeconds: 30 });
    await untilWaiters(key, 1);
    const second = apply(app, "preview", waiter, plan, { wait: true, waitTimeoutSeconds: 30 });
    await untilWaiters(key, 2);
    await held.release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.lines.every((l) => l.writtenBy === a.run.id)).toBe(true);
    const viewer = await session("viewer");
    const html = await (await browserRequest(app, "GET", "/dashboard", { cookie: viewer.cookie })).text();
    const row = html.slice(
      html.indexOf(`data-run="${b.run.id}"`),
      html.indexOf("</tr>", html.indexOf(`data-run="${b.run.id}"`)),
    );
    expect(row).toContain(`data-combined-by="${a.run.id}"`);
    expect(row).toContain(`written with ${a.run.id}`);
  });
});
