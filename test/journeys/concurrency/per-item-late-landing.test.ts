/**
 * One send of several requests, one of which got no answer (docs/design.md, "An unanswered attempt
 * ends the lease quietly"; "Write combining"). Kinde edits one URL per request, so a combining
 * holder's send is one request per change, in order. Here the holder removes the shared URL X (its
 * scope's destroy) and a waiter's create of X is carried after it. The holder's DELETE of X is
 * answered as lost (the emulator keeps it and applies it later: knob lateWrites) and its retry
 * succeeds. A POST of X sent after that in the same send would be overtaken by the late DELETE: X
 * gone, the waiter's ledger saying `created`. So no later request of the send writes X: the
 * waiter's change goes back to it, and it writes X itself once the holder's quiet release has let
 * the late landing come and go.
 *
 * The late attempt lands at the latest moment the time assumption ("What this guarantees") lets it:
 * after the holder's send, before the lock-delay ends. Time passing for the lock object is
 * simulated (its quiet period ended, its alarm run), never slept.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parentLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import { SecretRegistry } from "../../../shared/secrets";
import { lockStub, lockTarget } from "../../../workers/locks/lock-target";
import { connectionOf } from "../../helpers/connections";
import { configureHost, emulatorStub } from "../../helpers/emulators";
import { freshKindeDomain, kindeApp, seedKinde } from "../../helpers/emulators-kinde";
import { freshPr, receipt, untilWaiters } from "../../helpers/engine";
import { endLockDelay, rawStub } from "../../helpers/locks";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const APP = "a1b2c3d4e5f6";
const X = "my-app://shared-callback";
const at = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 60_000,
});

describe("a send whose request on an item got no answer sends no later request on that item", () => {
  it("the holder's late-landing DELETE of X never overtakes the waiter's create of X: it goes back to the waiter, which writes X after the quiet period", async () => {
    const domain = freshKindeDomain();
    await seedKinde(domain, {
      m2m: { clientId: "m2m-late", clientSecret: "kinde-secret-late-1" },
      apps: { [APP]: {} },
    });
    const connection = connectionOf(`kinde-late-${domain}`, {
      type: "kinde",
      domain,
      clientId: "m2m-late",
      clientSecret: { secret: "KINDE_LATE_SECRET" },
    });
    const plan: Plan = {
      version: 2,
      lines: [{ id: "x", op: "kinde.callbackUrl", connection, params: { app: APP, url: X } }],
    };
    const engine = () => testEngine({ bindings: { KINDE_LATE_SECRET: "kinde-secret-late-1" } });
    const [h, w] = [freshPr(), freshPr()];
    expect((await engine().apply({ ...at(h), plan })).run.status).toBe("succeeded");
    expect((await kindeApp(domain, APP))?.redirect_urls).toEqual([X]);

    // The holder's destroy and the waiter's apply queue behind another run, in that order: the
    // first becomes the holder and its grant takes the waiter's change.
    const identity = `kinde:${domain}:app:${APP}`;
    const key = await parentLockKey(identity, new SecretRegistry());
    const other = await lockTarget(env, key, identity).acquire({
      holder: "run-other",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    if (!other.ok) throw new Error(other.error.message);
    const holder: Promise<RunResult> = engine().destroy(at(h));
    await untilWaiters(key, 1);
    const waiter: Promise<RunResult> = engine().apply({ ...at(w), plan });
    await untilWaiters(key, 2);
    // The holder's first write, its DELETE of X, is kept by the provider and answered as lost.
    await configureHost(domain, { lateWrites: 1 });
    await lockStub(env, key).release({ key, holder: "run-other", token: other.value.token });

    const removed = await holder;
    expect(removed.run.status).toBe("succeeded");
    expect(removed.lines.map((l) => l.result)).toEqual(["removed"]);
    // The claim the holder made for the waiter's create is taken back with its report: until the
    // waiter writes X itself, nobody owns it (a claim left would name the waiter owner of nothing).
    const owned = (await lockStub(env, key).ownership({ key })).items.find((i) => i.key === X);
    expect(owned?.owners ?? []).toEqual([]);
    // The late attempt lands now, within the quiet period after the holder's release.
    expect(await emulatorStub(domain).landLateWrites()).toBe(1);
    await configureHost(domain, {});
    expect((await kindeApp(domain, APP))?.redirect_urls).toEqual([]);
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));

    const created = await waiter;
    expect(created.run.status).toBe("succeeded");
    expect(created.lines.map((l) => [l.result, l.writtenBy ?? null])).toEqual([["created", null]]);
    expect((await receipt("preview", w)).ledger.map((e) => [e.key, e.holding])).toEqual([[X, "created"]]);
    expect((await kindeApp(domain, APP))?.redirect_urls, "the waiter's entry survives").toEqual([X]);
  });
});
