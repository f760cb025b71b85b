/**
 * docs/design.md, "Lease protocol", "After the write": a write that never answered leaves its outcome
 * unknown, whatever the retry that followed it was told. Here Auth0's PATCH (no precondition) loses
 * its answer, the adapter sends it again and that attempt is refused (a 429 whose reset is past the
 * retry budget). The refusal says nothing of the first attempt, which may still land: the group fails
 * LOCK_LOST with outcome "unknown", its intents stay and the parent lease, still held, ends by a quiet
 * release, so the lock-delay after it keeps the next holder from a late landing. Before, the refusal
 * read as "nothing was written": the lease was released in time, a newcomer was granted at once, and
 * the late landing left an entry no receipt named.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lockStub } from "../../workers/locks/lock-target";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, durableIntents, freshPr } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const request = (scope: string) => ({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });
const callbackOf = (scope: string) => `https://${scope}.preview.example.com/callback`;

/** A 429 whose reset is an hour away: past any retry budget, so the adapter's answer is final. */
const throttledForAnHour = () =>
  new Response(JSON.stringify({ statusCode: 429, error: "Too Many Requests", message: "slow down" }), {
    status: 429,
    headers: { "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600) },
  });

/**
 * The run's PATCHes: with `lostFirst`, the first is sent but its answer lost (the provider applies
 * it when `land()` is called), the next is throttled; without, the first is throttled. Others pass.
 */
function patches(lostFirst: boolean) {
  let land: (() => Promise<Response>) | null = null;
  let sent = 0;
  const wrapFetch =
    (inner: typeof fetch): typeof fetch =>
    async (input, init) => {
      if ((init?.method ?? "GET").toUpperCase() !== "PATCH") return inner(input, init);
      sent += 1;
      if (lostFirst && sent === 1) {
        land = () => inner(input, { ...init, signal: undefined });
        throw new TypeError("network connection lost");
      }
      if (sent === (lostFirst ? 2 : 1)) return throttledForAnHour();
      return inner(input, init);
    };
  return { wrapFetch, land: () => (land as unknown as () => Promise<Response>)() };
}

/** Whether a newcomer is granted the application's lock at once (released again if so). */
async function grantedAtOnce(key: string): Promise<boolean> {
  const probe = await lockStub(env, key).acquire({ key, holder: "run-probe", ttlMs: 1_000 });
  if (probe.ok) await lockStub(env, key).release({ key, holder: "run-probe", token: probe.value.token });
  return probe.ok;
}

describe("a write retried after its answer was lost", () => {
  it("is an unknown outcome when the retry is refused: the lease ends quietly, intents kept, the late landing recorded", async () => {
    const domain = freshAuth0Domain("retry-lost");
    await seedTenant(domain);
    const key = await appLockKey(domain);
    // The plan registers the tenant's connection, which an engine reads when it is made.
    const plan = previewPlan(domain);
    const a = freshPr();
    const { wrapFetch, land } = patches(true);

    const result = await testEngine({ combining: false, wrapFetch }).apply({ ...request(a), plan });

    expect(result.run.status).toBe("failed");
    const error = result.lines[0]?.error;
    expect(error?.code, JSON.stringify(error)).toBe("LOCK_LOST");
    expect(error?.detail).toMatchObject({ outcome: "unknown" });
    expect(await grantedAtOnce(key), "the lock-delay keeps a newcomer out").toBe(false);
    // Released (the lease was held: the provider answered), quiet for the lock-delay after it.
    const ended = (await lockStub(env, key).read({ key })).history.at(-1);
    expect(ended).toMatchObject({ transition: "released", note: expect.stringMatching(/may still land/) });
    // The first attempt lands late: the entry is there, and the scope's intent still names it.
    await land();
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toContain(callbackOf(a));
    const intents = await durableIntents("preview", a);
    expect(intents.map((i) => i.key)).toContain(callbackOf(a));
  });

  it("control: a write refused on its only attempt wrote nothing, and the lock is free at once", async () => {
    const domain = freshAuth0Domain("retry-refused");
    await seedTenant(domain);
    const key = await appLockKey(domain);
    // The plan registers the tenant's connection, which an engine reads when it is made.
    const plan = previewPlan(domain);
    const a = freshPr();
    const { wrapFetch } = patches(false);

    const result = await testEngine({ combining: false, wrapFetch }).apply({ ...request(a), plan });

    expect(result.run.status).toBe("failed");
    const error = result.lines[0]?.error;
    expect(error?.code, JSON.stringify(error)).toBe("PROVIDER_ERROR");
    expect(error?.detail?.outcome).toBeUndefined();
    expect(await grantedAtOnce(key)).toBe(true);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks ?? []).not.toContain(callbackOf(a));
  });
});
