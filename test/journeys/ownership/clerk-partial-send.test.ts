/**
 * A group whose send is several requests (Clerk's redirect URLs: one POST per URL) refused half-way
 * (docs/design.md, "Fencing around a write", "Writing one object's items"): another writer creates
 * a later URL of the group between the read under the lease and its POST, so Clerk refuses that
 * POST as a duplicate after earlier URLs of the same send were created. Those earlier URLs are the
 * run's own creations — never joined as `foreign`, never left unowned — and the URL the other
 * writer created is theirs: joined as foreign, never removed. The emulator's ClerkRace hook makes
 * the race deterministic.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OUTSIDE_ID_PREFIX } from "../../../dev/emulators/clerk";
import { parentLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import { SecretRegistry } from "../../../shared/secrets";
import { MAX_DECIDE_ATTEMPTS } from "../../../workers/adapters/stale-state";
import type { LockProvider } from "../../../workers/engine/deps";
import { ownerOf } from "../../../workers/engine/rules/ownership";
import { type LockTarget, lockStub, lockTarget } from "../../../workers/locks/lock-target";
import { clerkInstanceWith } from "../../adapters/clerk/clerk-instance";
import { connectionOf } from "../../helpers/connections";
import { durableIntents, freshPr, receipt, untilWaiters } from "../../helpers/engine";
import { overriding } from "../../helpers/lock-overrides";
import { endLockDelay, expireLeaseJustNow } from "../../helpers/locks";
import { DEFAULT_REPOSITORY, scopeAddress } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const urlOf = (scope: string, path: string) => `https://${scope}.preview.example.com/${path}`;
let n = 0;

async function world() {
  const c = await clerkInstanceWith({ redirectUrls: ["my-app://oauth-callback"] });
  n += 1;
  const secret = `CLERK_PARTIAL_KEY_${n}`;
  const connection = connectionOf(`partial-clerk-${n}-${c.instance}`, {
    type: "clerk",
    instance: c.instance,
    secretKey: { secret },
  });
  const plan = (...paths: string[]): Plan => ({
    version: 2,
    lines: paths.map((path) => ({
      id: path,
      op: "clerk.redirectUrl",
      connection,
      params: { url: `https://{scope}.preview.example.com/${path}` },
    })),
  });
  const engine = (wrapLocks?: (inner: LockProvider) => LockProvider) =>
    testEngine({ bindings: { [secret]: c.secretKey }, ...(wrapLocks ? { wrapLocks } : {}) });
  /** url → whose: the run's (an id Clerk gave our POST) or someone else's (the race hook's). */
  const urls = async () =>
    Object.fromEntries(
      (await c.redirectUrls()).map((r) => [r.url, r.id.startsWith(OUTSIDE_ID_PREFIX) ? "outside" : "ours"]),
    );
  const identity = `clerk:instance:${c.instance}`;
  const lockKey = await parentLockKey(identity, new SecretRegistry());
  /** What the instance's lock object records for a URL: its owning scopes and whether it is foreign. */
  const owned = async (url: string) => {
    const record = await lockStub(env, lockKey).ownership({ key: lockKey });
    const row = record.items.find((i) => i.op === "clerk.redirectUrl" && i.key === url);
    return { owners: row?.owners ?? [], foreign: row?.foreign ?? false };
  };
  return { c, plan, engine, urls, owned, identity, lockKey };
}

const at = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});
/**
 * Two runs queued behind another run's lease, in a known order: the first becomes the holder and
 * its grant takes the second's changes (docs/design.md, "Write combining"); `armed` runs last.
 */
async function queuedPair(
  s: Awaited<ReturnType<typeof world>>,
  first: () => Promise<RunResult>,
  second: () => Promise<RunResult>,
  armed: () => Promise<void>,
): Promise<[RunResult, RunResult]> {
  const other = await lockTarget(env, s.lockKey, s.identity).acquire({
    holder: "run-other",
    ttlMs: 60_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!other.ok) throw new Error(other.error.message);
  const holder = first();
  await untilWaiters(s.lockKey, 1);
  const waiter = second();
  await untilWaiters(s.lockKey, 2);
  await armed();
  await lockStub(env, s.lockKey).release({ key: s.lockKey, holder: "run-other", token: other.value.token });
  return Promise.all([holder, waiter]);
}

const me = (scope: string) => ownerOf(scopeAddress("preview", scope));
const results = (r: RunResult) => Object.fromEntries(r.lines.map((l) => [l.id, l.result]));

describe("a Clerk group refused half-way: what was sent stays the run's", () => {
  it("B created by someone else between the read and its POST, after A's POST: A is the run's creation, B joined as foreign; destroy removes A and leaves B", async () => {
    const s = await world();
    const scope = freshPr();
    const [A, B] = [urlOf(scope, "a"), urlOf(scope, "b")];
    await s.c.raceCreate(B);
    const applied = await s.engine().apply({ ...at(scope), plan: s.plan("a", "b") });
    expect(await s.urls()).toEqual({ [A]: "ours", [B]: "outside", "my-app://oauth-callback": "ours" });
    expect(applied.run.status).toBe("succeeded");
    expect(results(applied)).toEqual({ a: "created", b: "foreign" });
    expect(
      Object.fromEntries((await receipt("preview", scope)).ledger.map((e) => [e.key, e.holding])),
    ).toEqual({
      [A]: "created",
      [B]: "foreign",
    });
    expect(await s.owned(A)).toEqual({ owners: [me(scope)], foreign: false });
    expect(await s.owned(B)).toEqual({ owners: [me(scope)], foreign: true });
    expect(await durableIntents("preview", scope)).toEqual([]);

    const destroyed = await s.engine().destroy(at(scope));
    expect(destroyed.run.status).toBe("succeeded");
    expect(results(destroyed)).toEqual({ a: "removed", b: "released" });
    expect(await s.urls()).toEqual({ [B]: "outside", "my-app://oauth-callback": "ours" });
    expect(await s.owned(A)).toEqual({ owners: [], foreign: false });
  });

  it("control: the group's first POST refused (nothing of it sent) is decided again as before: that URL joined as foreign, the other created, nothing leaked", async () => {
    const s = await world();
    const scope = freshPr();
    const [A, B] = [urlOf(scope, "a"), urlOf(scope, "b")];
    await s.c.raceCreate(A);
    const applied = await s.engine().apply({ ...at(scope), plan: s.plan("a", "b") });
    expect(applied.run.status).toBe("succeeded");
    expect(results(applied)).toEqual({ a: "foreign", b: "created" });
    expect(await s.owned(A)).toEqual({ owners: [me(scope)], foreign: true });
    expect(await s.owned(B)).toEqual({ owners: [me(scope)], foreign: false });

    expect((await s.engine().destroy(at(scope))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual({ [A]: "outside", "my-app://oauth-callback": "ours" });
  });

  it("refused again on every attempt after a partial send: CONCURRENT_MODIFICATION naming what was written; the rollback removes it, every other writer's URL stays, nobody owns anything", async () => {
    const s = await world();
    const scope = freshPr();
    const paths = Array.from({ length: MAX_DECIDE_ATTEMPTS + 1 }, (_, i) => `u${i}`);
    // u0 goes through; u1 … u8 are each created by someone else right before their first POST:
    // the first attempt is refused half-way, each later one on its first request.
    for (const path of paths.slice(1)) await s.c.raceCreate(urlOf(scope, path));
    const applied = await s.engine().apply({ ...at(scope), plan: s.plan(...paths) });
    expect(applied.run.status).toBe("failed");
    const error = applied.lines[0]?.error;
    expect(error).toMatchObject({
      code: "CONCURRENT_MODIFICATION",
      detail: { attempts: MAX_DECIDE_ATTEMPTS, written: [urlOf(scope, "u0")] },
    });
    expect(error?.message).toContain(`${urlOf(scope, "u0")} written before a refusal stay this run's`);
    // The rollback took away what the run wrote; every URL another writer created is still there.
    expect(await s.urls()).toEqual({
      ...Object.fromEntries(paths.slice(1).map((p) => [urlOf(scope, p), "outside"])),
      "my-app://oauth-callback": "ours",
    });
    for (const path of paths)
      expect(await s.owned(urlOf(scope, path))).toEqual({ owners: [], foreign: false });
    expect(await durableIntents("preview", scope)).toEqual([]);
  });

  it("a combining holder refused on every attempt names only its own creations as its rollback's to remove: the waiter's URL it posted is named apart, and stays the waiter's", async () => {
    const s = await world();
    const [h, w] = [freshPr(), freshPr()];
    const H = urlOf(h, "h");
    const paths = Array.from({ length: MAX_DECIDE_ATTEMPTS + 1 }, (_, i) => `w${i}`);
    const W = paths.map((p) => urlOf(w, p));
    const [rh, rw] = await queuedPair(
      s,
      () => s.engine().apply({ ...at(h), plan: s.plan("h") }),
      () => s.engine().apply({ ...at(w), plan: s.plan(...paths) }),
      // w0 goes through after the holder's h; w1 … w8 are each created by someone else right
      // before their first POST: every attempt is refused.
      async () => {
        for (const url of W.slice(1)) await s.c.raceCreate(url);
      },
    );
    expect(rh.run.status).toBe("failed");
    const error = rh.lines[0]?.error;
    expect(error).toMatchObject({
      code: "CONCURRENT_MODIFICATION",
      detail: { attempts: MAX_DECIDE_ATTEMPTS, written: [H], writtenForOthers: [W[0]] },
    });
    expect(error?.message).toContain(`${H} written before a refusal stay this run's`);
    expect(error?.message).not.toContain(`${W[0]} written before a refusal stay this run's`);
    // The holder's rollback took its own URL away; the waiter, answered that its changes came back,
    // decided them itself: the URL the holder posted for it is its creation, the others foreign.
    expect(rw.run.status).toBe("succeeded");
    expect(results(rw)).toEqual({
      ...Object.fromEntries(paths.map((p) => [p, "foreign"])),
      w0: "created",
    });
    expect(await s.urls()).toEqual({
      [W[0] as string]: "ours",
      ...Object.fromEntries(W.slice(1).map((u) => [u, "outside"])),
      "my-app://oauth-callback": "ours",
    });
    expect(await s.owned(W[0] as string)).toEqual({ owners: [me(w)], foreign: false });
  });

  it("the lease expires at the object after the send refused half-way, and the next attempt writes nothing: its release is still the check after what was written (LOCK_LOST, outcome unknown, intents kept); recovery removes A", async () => {
    const s = await world();
    const scope = freshPr();
    const [A, B] = [urlOf(scope, "a"), urlOf(scope, "b")];
    await s.c.raceCreate(B);
    // Once the second attempt has made its claims (B joined as foreign), only the object knows
    // the lease ran out: the holder's own deadline is far away.
    const expireAfterJoin = (inner: LockProvider): LockProvider => ({
      ...inner,
      parent: async (identity) => {
        const target: LockTarget = await inner.parent(identity);
        return overriding(target, {
          changeOwners: async (req) => {
            const answer = await target.changeOwners(req);
            if (req.changes.some((c) => c.key === B && c.action === "foreign"))
              await expireLeaseJustNow(s.lockKey);
            return answer;
          },
        });
      },
    });
    const applied = await s.engine(expireAfterJoin).apply({ ...at(scope), plan: s.plan("a", "b") });
    expect(applied.run.status).toBe("failed");
    expect(applied.lines[0]?.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    expect(applied.lines[0]?.error?.message).toContain("may have landed");
    expect((await durableIntents("preview", scope)).map((i) => i.key).sort()).toEqual([A, B]);
    // A stays the scope's (its claim was kept), so its recovery removes it; B is someone else's.
    expect(await s.owned(A)).toEqual({ owners: [me(scope)], foreign: false });
    await endLockDelay(s.lockKey);
    expect((await s.engine().recover(at(scope))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual({ [B]: "outside", "my-app://oauth-callback": "ours" });
    expect(await durableIntents("preview", scope)).toEqual([]);
  });

  it("under write combining: the holder's send carries a waiter's two URLs and the second is refused; the holder's URL and the waiter's first are each their run's creation, the refused one the waiter's foreign join", async () => {
    const s = await world();
    const [h, w] = [freshPr(), freshPr()];
    const [H, W1, W2] = [urlOf(h, "h"), urlOf(w, "w1"), urlOf(w, "w2")];
    const [rh, rw] = await queuedPair(
      s,
      () => s.engine().apply({ ...at(h), plan: s.plan("h") }),
      () => s.engine().apply({ ...at(w), plan: s.plan("w1", "w2") }),
      () => s.c.raceCreate(W2),
    );

    expect(await s.urls()).toEqual({
      [H]: "ours",
      [W1]: "ours",
      [W2]: "outside",
      "my-app://oauth-callback": "ours",
    });
    expect(rh.run.status).toBe("succeeded");
    expect(results(rh)).toEqual({ h: "created" });
    expect(rw.run.status).toBe("succeeded");
    expect(rw.lines.map((l) => [l.id, l.result, l.writtenBy])).toEqual([
      ["w1", "created", rh.run.id],
      ["w2", "foreign", rh.run.id],
    ]);
    expect(await s.owned(H)).toEqual({ owners: [me(h)], foreign: false });
    expect(await s.owned(W1)).toEqual({ owners: [me(w)], foreign: false });
    expect(await s.owned(W2)).toEqual({ owners: [me(w)], foreign: true });
    for (const scope of [h, w]) expect(await durableIntents("preview", scope)).toEqual([]);

    for (const scope of [h, w]) expect((await s.engine().destroy(at(scope))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual({ [W2]: "outside", "my-app://oauth-callback": "ours" });
  });
  it("under write combining: the holder's removal of a URL is sent, then a waiter's create of that same URL is refused (someone re-created it): the waiter joins it as foreign, not as shared with the holder that just left it", async () => {
    const s = await world();
    const X = "my-app://shared-callback";
    const [h, w] = [freshPr(), freshPr()];
    const fixed: Plan = {
      ...s.plan("x"),
      lines: s.plan("x").lines.map((l) => ({ ...l, params: { url: X } })),
    };
    expect(results(await s.engine().apply({ ...at(h), plan: fixed }))).toEqual({ x: "created" });
    const [rh, rw] = await queuedPair(
      s,
      () => s.engine().destroy(at(h)),
      () => s.engine().apply({ ...at(w), plan: fixed }),
      // The holder's DELETE of X goes through; the POST of X for the waiter that follows it in the
      // same send meets the URL someone else created meanwhile.
      () => s.c.raceCreate(X),
    );
    expect(rh.run.status).toBe("succeeded");
    expect(results(rh)).toEqual({ x: "removed" });
    expect(rw.run.status).toBe("succeeded");
    expect(rw.lines.map((l) => [l.result, l.writtenBy])).toEqual([["foreign", rh.run.id]]);
    expect(await s.urls()).toEqual({ [X]: "outside", "my-app://oauth-callback": "ours" });
    expect(await s.owned(X)).toEqual({ owners: [me(w)], foreign: true });
    expect((await s.engine().destroy(at(w))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual({ [X]: "outside", "my-app://oauth-callback": "ours" });
  });
});
