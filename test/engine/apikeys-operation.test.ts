/**
 * A Google API key update is a long-running Operation (docs/design.md, "Fencing around a write"):
 * one still not done when the provider request timeout has passed may still land, exactly as a
 * write whose answer was lost — the run fails LOCK_LOST with an unknown outcome, its intent stays,
 * the parent lease ends quietly so the next holder waits out the lock-delay, and the scope's
 * recovery settles the item from what is there once the update landed. One done with an error
 * wrote nothing and says so: a definite failure, nothing in doubt, no quiet period.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../shared/clock";
import { parentLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { apiKeyIdentity } from "../../workers/adapters/apikeys";
import { apiKeyWith, KEY } from "../adapters/apikeys/api-key";
import { connectionOf } from "../helpers/connections";
import { apiKey, landPendingOperations, setOperations } from "../helpers/emulators-apikeys";
import { durableIntents, freshPr } from "../helpers/engine";
import { endLockDelay, stub as lock, rawStub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const APP = "https://app.example.com/*";

/**
 * The wall clock whose sleeps return at once and move it forward: the polls' waits cost no real
 * time, and the engine still sees them pass (its leases live on the lock objects' real time).
 */
function instantSleeps(): Clock {
  let offset = 0;
  return {
    ...systemClock,
    now: () => Date.now() + offset,
    sleep: async (ms) => {
      offset += ms;
    },
  };
}

let n = 0;
async function world() {
  const scope = freshPr();
  const k = await apiKeyWith([APP]);
  n += 1;
  const connection = connectionOf(`operation-apikeys-${n}`, {
    type: "googleapikey",
    serviceAccountKey: { secret: "OPERATION_APIKEYS_KEY" },
  });
  const own = `https://${scope}.preview.example.com/*`;
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "web",
        op: "googleapikey.referrer",
        connection,
        params: { project: k.project, key: KEY, referrer: own },
      },
    ],
  };
  const requests: string[] = [];
  const engine = testEngine({
    bindings: { OPERATION_APIKEYS_KEY: k.account.keyJson },
    clock: instantSleeps(),
    requests,
  });
  const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope, wait: true };
  const lockKey = await parentLockKey(apiKeyIdentity(k.project, KEY), new SecretRegistry());
  const patches = () => requests.filter((r) => r.startsWith("PATCH apikeys.googleapis.com/")).length;
  const apply = () => engine.apply({ ...address, plan });
  return { ...k, scope, own, plan, engine, address, lockKey, requests, patches, apply };
}

describe("an API key update whose Operation is still pending at the provider request timeout", () => {
  it("is an unknown outcome, as a lost answer: LOCK_LOST, intent kept, a quiet release; recovery settles it once it landed", async () => {
    const w = await world();
    await setOperations(w.project, KEY, { pendingPolls: "never" });
    const applied = await w.apply();

    expect(applied.run.status).toBe("failed");
    expect(applied.lines[0]?.result).not.toBe("created");
    expect(applied.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(applied.lines[0]?.error?.message).toMatch(/still not done .*may still land/);
    expect((await lock(w.lockKey).read({ key: w.lockKey })).history.at(-1)).toMatchObject({
      transition: "released",
      note: expect.stringMatching(/may still land/),
    });
    expect((await durableIntents("preview", w.scope)).map((i) => i.key)).toEqual([w.own]);
    expect(await w.referrersNow()).toEqual([APP]);
    // Polled within the provider request timeout, then given up.
    expect(w.requests.filter((r) => r.startsWith("GET apikeys.googleapis.com/v2/operations/"))).toHaveLength(
      7,
    );

    // The update lands after the run stopped waiting for it, before the lock-delay ends.
    expect(await landPendingOperations(w.project, KEY)).toBe(1);
    await setOperations(w.project, KEY, null);
    expect(await w.referrersNow()).toEqual([APP, w.own]);
    await endLockDelay(w.lockKey);
    await runDurableObjectAlarm(rawStub(w.lockKey));
    // Recovery reads the key and undoes the failed run's create: the referrer is the scope's own,
    // never foreign.
    const before = w.patches();
    expect((await w.engine.recover(w.address)).run.status).toBe("succeeded");
    expect(await durableIntents("preview", w.scope)).toEqual([]);
    expect(await w.referrersNow()).toEqual([APP]);
    // It found the referrer there (the landing) and removed it: one PATCH, the removal's.
    expect(w.patches() - before).toBe(1);
    expect((await apiKey(w.project, KEY))?.version).toBe(3);
  });
});

describe("an API key update whose Operation ends with an error", () => {
  it("is a definite failure with the provider's message: nothing in doubt, no intent left, no quiet period", async () => {
    const w = await world();
    await setOperations(w.project, KEY, {
      pendingPolls: 1,
      error: { code: 3, message: "Referrer pattern is not valid." },
    });
    const applied = await w.apply();

    expect(applied.run.status).toBe("failed");
    const error = applied.lines[0]?.error;
    expect(error?.code).toBe("PROVIDER_ERROR");
    expect(error?.message).toContain("Referrer pattern is not valid.");
    expect(error?.detail?.outcome).toBeUndefined();
    expect(await w.referrersNow()).toEqual([APP]);
    expect(await durableIntents("preview", w.scope)).toEqual([]);
    const last = (await lock(w.lockKey).read({ key: w.lockKey })).history.at(-1);
    expect(last?.transition).toBe("released");
    expect(last?.note ?? "").not.toMatch(/may still land/);

    await setOperations(w.project, KEY, null);
    const again = await w.apply();
    expect(again.lines.map((l) => l.result)).toEqual(["created"]);
    expect(await w.referrersNow()).toEqual([APP, w.own]);
  });
});
