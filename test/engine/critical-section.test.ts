/**
 * One critical section per shared object per run: a run's lines on one application take its lock
 * once, read it once under the lease and write it once; lines on two applications take each lock once.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lockStub } from "../../workers/locks/lock-target";
import { apply, destroy, testApp } from "../helpers/app";
import { auth0Client, emulatorStub, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appLockKey, freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, previewPlan, TEST_M2M } from "../helpers/plans";

const app = testApp();
const OTHER = "admin-app";

async function counters(domain: string, client = APP_CLIENT) {
  const key = await appLockKey(domain, client);
  const stats = await emulatorStub(domain).stats();
  return {
    token: (await lockStub(env, key).read({ key })).lastToken,
    requests: stats.requests,
    writes: stats.writes,
  };
}

describe("one critical section per object per run", () => {
  it("three lines on one application: one lease, token + read + read under the lease + one write", async () => {
    const domain = freshAuth0Domain();
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { [APP_CLIENT]: { callbacks: ["https://app.example.com/cb"] } },
    });
    const scope = freshPr();
    const before = await counters(domain);
    const result = await apply(app, "preview", scope, previewPlan(domain));
    const after = await counters(domain);
    expect(result.lines.map((l) => [l.id, l.result])).toEqual([
      ["callback", "created"],
      ["logout", "created"],
      ["origin", "created"],
    ]);
    expect(after.token - before.token).toBe(1);
    expect(after.writes - before.writes).toBe(1);
    expect(after.requests - before.requests).toBeLessThanOrEqual(4);
    const client = await auth0Client(domain, APP_CLIENT);
    expect(client?.callbacks).toEqual([
      "https://app.example.com/cb",
      `https://${scope}.preview.example.com/callback`,
    ]);
    expect(client?.allowed_logout_urls).toEqual([`https://${scope}.preview.example.com/`]);
    expect(client?.web_origins).toEqual([`https://${scope}.preview.example.com`]);
    const stored = await receipt("preview", scope);
    expect(stored.ledger.map((e) => e.line).sort()).toEqual(["callback", "logout", "origin"]);
    expect(stored.intents).toEqual([]);

    // The destroy gives the three back the same way: one lease, one write.
    const d = await destroy(app, "preview", scope);
    expect(d.run.status).toBe("succeeded");
    const gone = await counters(domain);
    expect(gone.token - after.token).toBe(1);
    expect(gone.writes - after.writes).toBe(1);
    const emptied = await auth0Client(domain, APP_CLIENT);
    expect(emptied?.callbacks).toEqual(["https://app.example.com/cb"]);
    expect(emptied?.web_origins).toEqual([]);
  });

  it("lines on two applications: each application's lock once, one write each", async () => {
    const domain = freshAuth0Domain();
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: {}, [OTHER]: {} } });
    const scope = freshPr();
    const plan = auth0Plan(domain, [
      { id: "a-cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/a" },
      { id: "b-cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/b" },
      { id: "a-origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
      { id: "b-origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
    ]);
    for (const line of plan.lines) if (line.id.startsWith("b-")) line.params.client = OTHER;
    const [a0, b0] = [await counters(domain), await counters(domain, OTHER)];
    const result = await apply(app, "preview", scope, plan);
    expect(result.lines.map((l) => l.id)).toEqual(["a-cb", "b-cb", "a-origin", "b-origin"]);
    expect(result.lines.every((l) => l.result === "created")).toBe(true);
    const [a1, b1] = [await counters(domain), await counters(domain, OTHER)];
    expect(a1.token - a0.token).toBe(1);
    expect(b1.token - b0.token).toBe(1);
    expect(a1.writes - a0.writes).toBe(2);
    expect((await auth0Client(domain, OTHER))?.callbacks).toEqual([`https://${scope}.preview.example.com/b`]);
  });
});
