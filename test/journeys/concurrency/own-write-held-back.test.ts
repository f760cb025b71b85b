/**
 * The holder's own write on an item an earlier request of its lease got no answer for (docs/design.md,
 * "An unanswered attempt ends the lease quietly"; "Write combining"). Kinde edits one URL per
 * request, so a combining holder sends its own POST of X, then the waiter's POST of Y. The POST of
 * X is answered as lost (the emulator keeps it: knob lateWrites) and its retry succeeds; then the
 * provider refuses Y (400). The waiter gets Y back and the holder writes its own changes again
 * alone, under the same lease. Someone removed X by hand meanwhile, so that second section decides a
 * create of X again — which it may not send: the first attempt may still land after it. Nor can an
 * own change go back to anyone. The group's outcome is unknown: the holder's line fails LOCK_LOST
 * saying so, its intent of X stays, and the waiter writes Y itself. When the lost attempt lands
 * (within the quiet period), the holder's recovery finds the intent and removes X.
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
import { durableIntents, freshPr, untilWaiters } from "../../helpers/engine";
import { endLockDelay, rawStub } from "../../helpers/locks";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const APP = "a1b2c3d4e5f7";
const X = "my-app://holder-x";
const Y = "my-app://waiter-y";
const at = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 60_000,
});

describe("a holder's own write on an item whose earlier request got no answer", () => {
  it("is never sent again under that lease nor dropped: the group fails with its outcome unknown, X's intent stays, the waiter writes Y itself", async () => {
    const domain = freshKindeDomain();
    await seedKinde(domain, {
      m2m: { clientId: "m2m-hb", clientSecret: "kinde-secret-hb-1" },
      apps: { [APP]: {} },
    });
    const connection = connectionOf(`kinde-hb-${domain}`, {
      type: "kinde",
      domain,
      clientId: "m2m-hb",
      clientSecret: { secret: "KINDE_HB_SECRET" },
    });
    const planOf = (url: string): Plan => ({
      version: 2,
      lines: [{ id: "u", op: "kinde.callbackUrl", connection, params: { app: APP, url } }],
    });
    let refusedY = false;
    const posts: string[] = [];
    // The holder's transport: the waiter's POST of Y is refused 400, and X is removed by hand then.
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        const req = new Request(input, init);
        if (req.method !== "POST" || !req.url.includes("redirect_urls")) return inner(input, init);
        const body = await req.clone().text();
        posts.push(body.includes(Y) ? "Y" : body.includes(X) ? "X" : body);
        if (refusedY || !body.includes(Y)) return inner(input, init);
        refusedY = true;
        await seedKinde(domain, { apps: { [APP]: { redirect_urls: [] } } });
        return Response.json({ errors: [{ code: "INVALID", message: "bad url" }] }, { status: 400 });
      };
    const bindings = { KINDE_HB_SECRET: "kinde-secret-hb-1" };
    const [h, w] = [freshPr(), freshPr()];
    const identity = `kinde:${domain}:app:${APP}`;
    const key = await parentLockKey(identity, new SecretRegistry());
    // The holder and the waiter queue behind another run, in that order: the first becomes the
    // holder, and its grant takes the waiter's change.
    const other = await lockTarget(env, key, identity).acquire({
      holder: "run-other",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    if (!other.ok) throw new Error(other.error.message);
    const holder: Promise<RunResult> = testEngine({ bindings, wrapFetch }).apply({
      ...at(h),
      plan: planOf(X),
    });
    await untilWaiters(key, 1);
    const waiter: Promise<RunResult> = testEngine({ bindings }).apply({ ...at(w), plan: planOf(Y) });
    await untilWaiters(key, 2);
    await configureHost(domain, { lateWrites: 1 });
    await lockStub(env, key).release({ key, holder: "run-other", token: other.value.token });

    const held = await holder;
    await configureHost(domain, {});
    expect(refusedY).toBe(true);
    // X twice (the lost attempt, its retry), Y refused; X is not sent a third time.
    expect(posts).toEqual(["X", "X", "Y"]);
    expect(held.run.status).toBe("failed");
    expect(held.lines.map((l) => l.id)).toEqual(["u"]);
    expect(held.lines[0]?.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    // Its first attempt may still land: the intent stays for the scope's recovery.
    expect((await durableIntents("preview", h)).map((i) => [i.action, i.key])).toEqual([["create", X]]);

    // The lost first attempt lands now, within the quiet period after the holder's release.
    expect(await emulatorStub(domain).landLateWrites()).toBe(1);
    expect((await kindeApp(domain, APP))?.redirect_urls).toEqual([X]);
    // Once the lock-delay is over the waiter writes Y itself.
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    const wrote = await waiter;
    expect(wrote.run.status).toBe("succeeded");
    expect(wrote.lines.map((l) => [l.result, l.writtenBy ?? null])).toEqual([["created", null]]);
    expect((await kindeApp(domain, APP))?.redirect_urls).toEqual([X, Y]);

    // The holder's recovery resolves X's intent under the lock: the late X goes, nothing is left.
    const recovered = await testEngine({ bindings }).recover(at(h));
    expect(recovered.run.status).toBe("succeeded");
    expect(await durableIntents("preview", h)).toEqual([]);
    expect((await kindeApp(domain, APP))?.redirect_urls).toEqual([Y]);
  });
});
