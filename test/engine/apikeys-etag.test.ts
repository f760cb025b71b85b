/**
 * A Google API key's etag under the engine (docs/design.md, "Fencing around a write"). The emulator
 * holds the run's PATCH while someone outside Sponson updates the key: the PATCH then carries a
 * stale etag, is refused 409 ABORTED, and the group is read and decided again — the control (a key
 * whose updates ignore the etag) loses the other writer's referrer with the same interleaving. A
 * PATCH whose answer is lost meets, on its retry, the etag its own landing changed: no refusal but
 * an unknown outcome (the intent kept, the lease ending quietly), which the scope's recovery
 * settles from what is there — the referrer present, the scope's own, never foreign.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parentLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { apiKeyIdentity } from "../../workers/adapters/apikeys";
import { apiKeyWith, KEY } from "../adapters/apikeys/api-key";
import { connectionOf } from "../helpers/connections";
import { configureHost, emulatorStub } from "../helpers/emulators";
import {
  APIKEYS_HOST,
  apiKey,
  changeRestrictions,
  seedApiKey,
  staleEtagRefusals,
} from "../helpers/emulators-apikeys";
import { durableIntents, freshPr, receipt } from "../helpers/engine";
import { endLockDelay, stub as lock, rawStub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const APP = "https://app.example.com/*";
const OTHER = "https://admin.example.com/*";
const web = (scope: string) => `https://${scope}.preview.example.com/*`;
const api = (scope: string) => `https://${scope}-api.preview.example.com/*`;

let n = 0;
async function world(existing: (scope: string) => string[]) {
  const scope = freshPr();
  const k = await apiKeyWith(existing(scope));
  n += 1;
  const connection = connectionOf(`etag-apikeys-${n}`, {
    type: "googleapikey",
    serviceAccountKey: { secret: "ETAG_APIKEYS_KEY" },
  });
  const line = (id: string, referrer: string) => ({
    id,
    op: "googleapikey.referrer",
    connection,
    params: { project: k.project, key: KEY, referrer },
  });
  const plan: Plan = { version: 2, lines: [line("web", web(scope)), line("api", api(scope))] };
  const engine = testEngine({ bindings: { ETAG_APIKEYS_KEY: k.account.keyJson } });
  const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope, wait: true };
  const apply = (p: Plan = plan) => engine.apply({ ...address, plan: p });
  return { ...k, scope, plan, engine, address, apply };
}

/** Resolves once the emulator holds `count` writes (reads the emulator; no sleeps). */
async function untilHeldWrites(count: number): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if ((await emulatorStub(APIKEYS_HOST).stats()).heldWrites >= count) return;
    await scheduler.wait(1);
  }
  throw new Error(`no ${count} held write(s)`);
}

/** Runs `apply` with its PATCH held while `meanwhile` changes the key, then lets it go. */
async function withWriteHeld<T>(apply: () => Promise<T>, meanwhile: () => Promise<void>): Promise<T> {
  await configureHost(APIKEYS_HOST, { holdWrites: 1 });
  const running = apply();
  await untilHeldWrites(1);
  await meanwhile();
  await emulatorStub(APIKEYS_HOST).releaseWrites();
  const result = await running;
  await configureHost(APIKEYS_HOST, {});
  return result;
}

const referrers = (restrictions: Record<string, unknown>) =>
  (restrictions.browserKeyRestrictions as { allowedReferrers?: string[] } | undefined)?.allowedReferrers ??
  [];
const addReferrer = (referrer: string) => (r: Record<string, unknown>) => ({
  ...r,
  browserKeyRestrictions: { allowedReferrers: [...referrers(r), referrer] },
});

describe("a key updated by someone else between the run's read and its write", () => {
  it("the stale etag is refused 409 and the group decided again: the other writer's referrer and both of the run's stay", async () => {
    const w = await world(() => [APP]);
    const refused = await staleEtagRefusals();
    const result = await withWriteHeld(w.apply, () => changeRestrictions(w.project, KEY, addReferrer(OTHER)));

    expect(result.run.status, JSON.stringify(result.lines.map((l) => l.error))).toBe("succeeded");
    expect(await staleEtagRefusals()).toBeGreaterThan(refused);
    expect(await w.referrersNow()).toEqual([APP, OTHER, web(w.scope), api(w.scope)]);
    expect(result.lines.map((l) => [l.id, l.result])).toEqual([
      ["web", "created"],
      ["api", "created"],
    ]);
  });

  it("a referrer the run would write is added by someone else first: decided again as found, not this run's creation", async () => {
    const w = await world(() => [APP]);
    const result = await withWriteHeld(w.apply, () =>
      changeRestrictions(w.project, KEY, addReferrer(web(w.scope))),
    );

    expect(result.run.status).toBe("succeeded");
    expect(await w.referrersNow()).toEqual([APP, web(w.scope), api(w.scope)]);
    const ledger = (await receipt("preview", w.scope)).ledger;
    expect(ledger.find((e) => e.line === "web")?.holding).not.toBe("created");
    expect(ledger.find((e) => e.line === "api")?.holding ?? "created").toBe("created");
  });

  it("control: a key whose updates ignore the etag, the same interleaving — the run says succeeded and the other writer's referrer is lost", async () => {
    const w = await world(() => [APP]);
    const record = await apiKey(w.project, KEY);
    if (!record) throw new Error("key missing");
    await seedApiKey(w.project, KEY, { ...record, ignoresEtag: true });
    const result = await withWriteHeld(w.apply, () => changeRestrictions(w.project, KEY, addReferrer(OTHER)));

    expect(result.run.status).toBe("succeeded");
    expect(await w.referrersNow()).toEqual([APP, web(w.scope), api(w.scope)]);
    expect(await w.referrersNow()).not.toContain(OTHER);
  });
});

describe("a PATCH whose answer is lost", () => {
  it("its retry meets its own etag change: an unknown outcome, not someone else's change; recovery finds the referrer the scope's own", async () => {
    const w = await world(() => [APP]);
    const plan: Plan = { version: 2, lines: [w.plan.lines[0] as Plan["lines"][number]] };
    const key = await parentLockKey(apiKeyIdentity(w.project, KEY), new SecretRegistry());

    await configureHost(APIKEYS_HOST, { loseWriteAnswers: 1 });
    const applied = await w.apply(plan);
    await configureHost(APIKEYS_HOST, {});

    // The PATCH landed once; the 409 that followed refused nothing but the run's own retry.
    expect(await w.referrersNow()).toEqual([APP, web(w.scope)]);
    expect(applied.run.status).toBe("failed");
    expect(applied.lines[0]?.result).not.toBe("foreign");
    expect(applied.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(applied.lines[0]?.error?.message).toContain("may have landed");
    expect((await lock(key).read({ key })).history.at(-1)).toMatchObject({
      transition: "released",
      note: expect.stringMatching(/may still land/),
    });
    expect((await durableIntents("preview", w.scope)).map((i) => i.key)).toEqual([web(w.scope)]);

    // After the lock-delay, recovery decides from what is there: the referrer present is the
    // scope's own (a foreign one would only be let go, and stay on the key for good).
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    expect((await w.engine.recover(w.address)).run.status).toBe("succeeded");
    expect(await durableIntents("preview", w.scope)).toEqual([]);
    expect(await w.referrersNow()).toEqual([APP]);

    const again = await w.apply(plan);
    expect(again.lines.map((l) => l.result)).toEqual(["created"]);
    const destroyed = await w.engine.destroy(w.address);
    expect(destroyed.lines.map((l) => l.result)).toEqual(["removed"]);
    expect(await w.referrersNow()).toEqual([APP]);
  });
});
