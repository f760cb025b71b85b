/**
 * docs/design.md, "Lease protocol", "Fencing around a write": a write that succeeded on a retry after
 * an attempt that got no answer. Auth0's PATCH has no precondition: the first attempt of run A's
 * `PATCH web_origins=[…, A]` is kept by the provider (the emulator's `lateWrites` knob) and answered as
 * lost; the retry is answered 200, and A succeeds. The first attempt may still land, with the list A
 * read. Before, nothing remembered it: A released its lease in time, the next run B was granted at
 * once and wrote `[…, A, B]`, and the late landing wrote `[…, A]` back over it: B's entry gone, its
 * receipt saying `created`. Now A's release starts a quiet period (the lock-delay, from the release)
 * and B is granted only after it; the control shows the normal path keeps no quiet period at all.
 *
 * The late attempt lands at the latest moment the time assumption ("What this guarantees") lets it:
 * once B has written, or while B is kept waiting, whichever comes first. Time passing for the lock
 * object is simulated (its quiet period is ended, its alarm run), never slept.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import { lockStub } from "../../workers/locks/lock-target";
import { auth0Client, configureHost, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr } from "../helpers/engine";
import { endLockDelay, rawStub } from "../helpers/locks";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const request = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 60_000,
});
const originOf = (scope: string) => `https://${scope}.preview.example.com`;
const originPlan = (domain: string) =>
  auth0Plan(domain, [{ id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" }]);

/** Whether a newcomer is granted the application's lock at once (released again if so). */
async function grantedAtOnce(key: string): Promise<boolean> {
  const probe = await lockStub(env, key).acquire({ key, holder: "run-probe", ttlMs: 1_000 });
  if (probe.ok) await lockStub(env, key).release({ key, holder: "run-probe", token: probe.value.token });
  return probe.ok;
}

/** Whether `run` settled or a run waits for `key`, whichever comes first (reads the object; no sleeps). */
async function settledOrQueued(run: Promise<unknown>, key: string): Promise<"settled" | "queued"> {
  let settled = false;
  void run.finally(() => {
    settled = true;
  });
  for (let i = 0; i < 10_000; i++) {
    if (settled) return "settled";
    if ((await lockStub(env, key).read({ key })).waiters.length > 0) return "queued";
    await scheduler.wait(1);
  }
  throw new Error(`run B neither ended nor waited for ${key}`);
}

/** The application's web origins as the provider holds them now. */
async function webOrigins(domain: string): Promise<string[]> {
  return (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
}

describe("a write that succeeded on a retry after an attempt got no answer", () => {
  it("keeps the next holder out until the late attempt can no longer land: B's entry survives", async () => {
    const domain = freshAuth0Domain("late-after-ok");
    await seedTenant(domain);
    const key = await appLockKey(domain);
    const plan = originPlan(domain);
    const [a, b] = [freshPr(), freshPr()];
    // A's first PATCH is kept and answered as lost; its retry goes through and is answered 200.
    await configureHost(domain, { lateWrites: 1 });

    const first: RunResult = await testEngine().apply({ ...request(a), plan });
    expect(first.run.status).toBe("succeeded");
    expect(first.lines.map((l) => l.result)).toEqual(["created"]);
    expect(await webOrigins(domain)).toEqual([originOf(a)]);

    const second = testEngine().apply({ ...request(b), plan });
    const when = await settledOrQueued(second, key);
    // The late attempt lands now: after B wrote if B was granted at once, else within B's wait.
    expect(await emulatorStub(domain).landLateWrites()).toBe(1);
    if (when === "queued") {
      await endLockDelay(key);
      await runDurableObjectAlarm(rawStub(key));
    }
    const result = await second;
    expect(result.run.status).toBe("succeeded");
    expect(result.lines.map((l) => l.result)).toEqual(["created"]);
    expect((await webOrigins(domain)).sort(), "B's entry survives the late landing").toEqual(
      [originOf(a), originOf(b)].sort(),
    );
    expect(when, "B waits for the quiet period after A's release").toBe("queued");
    // A's release said a write sent under its lease may still land.
    const history = (await lockStub(env, key).read({ key })).history;
    expect(history.find((h) => h.holder === first.run.id && h.transition === "released")).toMatchObject({
      note: expect.stringMatching(/may still land/),
    });
  });

  it("control: a write with no unanswered attempt releases in time, and the next run is granted at once", async () => {
    const domain = freshAuth0Domain("clean-release");
    await seedTenant(domain);
    const key = await appLockKey(domain);
    const plan = originPlan(domain);

    const first: RunResult = await testEngine().apply({ ...request(freshPr()), plan });
    expect(first.run.status).toBe("succeeded");
    const release = (await lockStub(env, key).read({ key })).history.at(-1);
    expect(release?.transition).toBe("released");
    expect(release?.note).toBeUndefined();
    expect(await grantedAtOnce(key)).toBe(true);
  });
});
