import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lockStub } from "../../workers/locks/lock-target";
import { apply, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import {
  appIdentity,
  appLockKey,
  freshPr,
  holdAppLock,
  providerWrites,
  receipt,
  untilWaiters,
} from "../helpers/engine";
import { APP_CLIENT, auth0Plan, TEST_M2M } from "../helpers/plans";

const OTHER_CLIENT = "admin-app";

async function seedTwoApps(domain: string) {
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: {}, [OTHER_CLIENT]: {} } });
}

function twoAppPlan(domain: string) {
  const plan = auth0Plan(domain, [
    { id: "first", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
    { id: "second", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
  const second = plan.lines[1];
  if (second) second.params.client = OTHER_CLIENT;
  return plan;
}

describe("parent leases", () => {
  it("a held application lock without wait fails the line with LOCK_HELD, fails the run and rolls back what it created", async () => {
    const domain = freshAuth0Domain();
    await seedTwoApps(domain);
    const scope = freshPr();
    const held = await holdAppLock(domain, "run-other", OTHER_CLIENT);
    const result = await apply(testApp(), "preview", scope, twoAppPlan(domain));
    await held.release();
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("LOCK_HELD");
    const second = result.lines.find((l) => l.id === "second");
    expect(second?.result).toBe("failed");
    expect(second?.error).toMatchObject({
      code: "LOCK_HELD",
      detail: { holder: { run: "run-other" }, parent: appIdentity(domain, OTHER_CLIENT) },
    });
    expect(result.lines.find((l) => l.id === "first")?.result).toBe("rolled-back");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
  });

  it("with wait, the run queues for the application lock and succeeds once it is released", async () => {
    const domain = freshAuth0Domain();
    await seedTwoApps(domain);
    const scope = freshPr();
    const held = await holdAppLock(domain);
    const running = apply(
      testApp(),
      "preview",
      scope,
      auth0Plan(domain, [
        { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
      ]),
      { wait: true, waitTimeoutSeconds: 30 },
    );
    await untilWaiters(held.key, 1);
    await held.release();
    const result = await running;
    expect(result.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([
      `https://${scope}.preview.example.com/callback`,
    ]);
  });

  it("inspects again under the lease: an entry that appeared while waiting is not written again", async () => {
    const domain = freshAuth0Domain();
    await seedTwoApps(domain);
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const held = await holdAppLock(domain);
    const running = apply(
      testApp(),
      "preview",
      scope,
      auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url }]),
      {
        wait: true,
        waitTimeoutSeconds: 30,
      },
    );
    await untilWaiters(held.key, 1);
    // While the run waits, the holder of the lock adds the very same entry.
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { callbacks: [url] } } });
    const writes = await providerWrites(domain);
    await held.release();
    const result = await running;
    // No scope claimed it: the run finds it foreign (so no destroy will ever remove it) and writes nothing.
    expect(result.lines[0]).toMatchObject({ diff: "unchanged", result: "foreign" });
    expect(await providerWrites(domain)).toBe(writes);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([url]);
  });

  it("losing the application lease before the write fails the line with LOCK_LOST naming the lock and parent", async () => {
    const domain = freshAuth0Domain();
    await seedTwoApps(domain);
    const scope = freshPr();
    const identity = appIdentity(domain);
    const app = testApp({
      engine: {
        // Between the intent and the write an admin force-releases the application lock.
        faults: async (point) => {
          if (point !== "after-intent") return;
          const key = await appLockKey(domain);
          await lockStub(env, key).forceRelease({ key, reason: "test: lease lost", actor: "admin" });
        },
      },
    });
    const result = await apply(
      app,
      "preview",
      scope,
      auth0Plan(domain, [
        { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
      ]),
    );
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error).toMatchObject({ code: "LOCK_LOST", detail: { parent: identity } });
    expect((result.lines[0]?.error?.detail as { lock: string } | undefined)?.lock).toMatch(
      /^_locks\/[0-9a-f]{32}$/,
    );
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    const stored = await receipt("preview", scope);
    expect(stored.intents).toEqual([]);
    expect(stored.runs.at(-1)?.status).toBe("failed");
  });
});
