/**
 * A refused write's claims when they cannot be taken back (docs/design.md, "A send of several
 * requests refused half-way"; "Intent recovery"; "Ownership of shared entries"). A run claims every
 * item before it writes; when the provider refuses a create because someone else made the entry
 * meanwhile (Clerk's duplicate, GCS's 412), that claim is withdrawn. If the withdraw cannot be made
 * (the lease force-released, the lock object unreachable), the claim stays at the lock, naming this
 * scope the only owner of the other writer's entry: its rollback, or a later recovery, would remove
 * that entry. So the refused creates' intents are marked `refused` in the receipt first, and recovery
 * only leaves such an item, never removes it.
 *
 * Clerk: a run applies A and B; someone else creates B right before the run's POST of B (the
 * emulator's ClerkRace hook), after A was posted.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OUTSIDE_ID_PREFIX } from "../../../dev/emulators/clerk";
import { parentLockKey } from "../../../shared/lock-keys";
import type { OwnerChange } from "../../../shared/schemas/ownership";
import type { Plan } from "../../../shared/schemas/plan";
import { SecretRegistry } from "../../../shared/secrets";
import type { LockProvider } from "../../../workers/engine/deps";
import { ownerOf } from "../../../workers/engine/rules/ownership";
import { type LockTarget, lockStub } from "../../../workers/locks/lock-target";
import { clerkInstanceWith } from "../../adapters/clerk/clerk-instance";
import { bucketWithCors } from "../../adapters/gcs/gcs-bucket";
import { connectionOf } from "../../helpers/connections";
import { configureHost, emulatorStub } from "../../helpers/emulators";
import { GCS_HOST, gcsBucket, seedBucket } from "../../helpers/emulators-gcs";
import { durableIntents, freshPr } from "../../helpers/engine";
import { overriding } from "../../helpers/lock-overrides";
import { endLockDelay } from "../../helpers/locks";
import { DEFAULT_REPOSITORY, scopeAddress } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const urlOf = (scope: string, path: string) => `https://${scope}.preview.example.com/${path}`;
const me = (scope: string) => ownerOf(scopeAddress("preview", scope));
const at = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});
/** The withdraw of a refused write's claims: an ownership change that takes this scope away. */
const withdrawing = (changes: readonly OwnerChange[], key: string) =>
  changes.some((c) => c.key === key && c.action === "remove");

let n = 0;
async function clerkWorld() {
  const c = await clerkInstanceWith({ redirectUrls: ["my-app://oauth-callback"] });
  n += 1;
  const secret = `CLERK_REFUSED_KEY_${n}`;
  const connection = connectionOf(`refused-clerk-${n}-${c.instance}`, {
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
    testEngine({
      bindings: { [secret]: c.secretKey },
      combining: false,
      ...(wrapLocks ? { wrapLocks } : {}),
    });
  /** url → whose: the run's (an id Clerk gave its POST) or someone else's (the race hook's). */
  const urls = async () =>
    Object.fromEntries(
      (await c.redirectUrls()).map((r) => [r.url, r.id.startsWith(OUTSIDE_ID_PREFIX) ? "outside" : "ours"]),
    );
  const lockKey = await parentLockKey(`clerk:instance:${c.instance}`, new SecretRegistry());
  const owned = async (url: string) => {
    const row = (await lockStub(env, lockKey).ownership({ key: lockKey })).items.find((i) => i.key === url);
    return { owners: row?.owners ?? [], foreign: row?.foreign ?? false };
  };
  /**
   * The parent lock's ownership changes under the run's first lease (its critical section, not its
   * rollback's or a recovery's later leases) go through `change` first.
   */
  const onOwnerChange =
    (change: (changes: readonly OwnerChange[], target: LockTarget) => Promise<void>) =>
    (inner: LockProvider): LockProvider => {
      let first: number | null = null;
      return {
        ...inner,
        parent: async (identity) => {
          const target = await inner.parent(identity);
          return overriding(target, {
            changeOwners: async (req) => {
              first ??= req.token;
              if (req.token === first) await change(req.changes, target);
              return target.changeOwners(req);
            },
          });
        },
      };
    };
  return { c, plan, engine, urls, owned, lockKey, onOwnerChange };
}

describe("a refused write whose claims cannot be withdrawn", () => {
  it("the lease force-released right before the withdraw, A already posted: outcome unknown, B's intent marked refused; recovery removes A and only leaves B", async () => {
    const s = await clerkWorld();
    const scope = freshPr();
    const [A, B] = [urlOf(scope, "a"), urlOf(scope, "b")];
    await s.c.raceCreate(B);
    let forced = false;
    const forceBeforeWithdraw = s.onOwnerChange(async (changes) => {
      if (forced || !withdrawing(changes, B)) return;
      forced = true;
      await lockStub(env, s.lockKey).forceRelease({ key: s.lockKey, reason: "test", actor: "admin" });
    });
    const applied = await s.engine(forceBeforeWithdraw).apply({ ...at(scope), plan: s.plan("a", "b") });
    expect(forced).toBe(true);
    expect(applied.run.status).toBe("failed");
    // A was written under a lease the run can no longer vouch for.
    expect(applied.lines[0]?.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    expect(await s.urls()).toEqual({ [A]: "ours", [B]: "outside", "my-app://oauth-callback": "ours" });
    const intents = await durableIntents("preview", scope);
    expect(intents.map((i) => [i.key, i.action, i.refused ?? false]).sort()).toEqual([
      [A, "create", false],
      [B, "create", true],
    ]);
    // The claim the withdraw could not take back still names the scope B's only owner.
    expect(await s.owned(B)).toEqual({ owners: [me(scope)], foreign: false });

    await endLockDelay(s.lockKey);
    expect((await s.engine().recover(at(scope))).run.status).toBe("succeeded");
    expect(await s.urls(), "the other writer's B stays").toEqual({
      [B]: "outside",
      "my-app://oauth-callback": "ours",
    });
    expect(await s.owned(B)).toEqual({ owners: [], foreign: false });
    expect(await durableIntents("preview", scope)).toEqual([]);
  });

  it("the withdraw never reaches the lock object: the run fails, and its rollback removes A and only leaves B", async () => {
    const s = await clerkWorld();
    const scope = freshPr();
    const [A, B] = [urlOf(scope, "a"), urlOf(scope, "b")];
    await s.c.raceCreate(B);
    let tries = 0;
    const unreachable = s.onOwnerChange(async (changes) => {
      if (!withdrawing(changes, B)) return;
      tries += 1;
      throw new Error("Durable Object reset because its code was updated.");
    });
    const applied = await s.engine(unreachable).apply({ ...at(scope), plan: s.plan("a", "b") });
    expect(tries, "the withdraw is tried more than once").toBeGreaterThan(1);
    expect(applied.run.status).toBe("failed");
    expect(await s.urls(), "the other writer's B stays").toEqual({
      [B]: "outside",
      "my-app://oauth-callback": "ours",
    });
    expect(await s.owned(A)).toEqual({ owners: [], foreign: false });
    expect(await s.owned(B)).toEqual({ owners: [], foreign: false });
    expect(await durableIntents("preview", scope)).toEqual([]);
  });

  it("the withdraw fails once in transport: tried again, it lands, and the run goes on as after any refusal", async () => {
    const s = await clerkWorld();
    const scope = freshPr();
    const [A, B] = [urlOf(scope, "a"), urlOf(scope, "b")];
    await s.c.raceCreate(B);
    let failed = false;
    const resetOnce = s.onOwnerChange(async (changes) => {
      if (failed || !withdrawing(changes, B)) return;
      failed = true;
      throw new Error("Durable Object reset because its code was updated.");
    });
    const applied = await s.engine(resetOnce).apply({ ...at(scope), plan: s.plan("a", "b") });
    expect(failed).toBe(true);
    expect(applied.run.status).toBe("succeeded");
    expect(applied.lines.map((l) => [l.id, l.result])).toEqual([
      ["a", "created"],
      ["b", "foreign"],
    ]);
    expect(await s.owned(A)).toEqual({ owners: [me(scope)], foreign: false });
    expect(await s.owned(B)).toEqual({ owners: [me(scope)], foreign: true });
  });

  it("nothing sent (the first POST refused) and the withdraw lost: the run fails as refused, and its rollback removes nothing", async () => {
    const s = await clerkWorld();
    const scope = freshPr();
    const [A, B] = [urlOf(scope, "a"), urlOf(scope, "b")];
    await s.c.raceCreate(A);
    const unreachable = s.onOwnerChange(async (changes) => {
      if (withdrawing(changes, A)) throw new Error("Durable Object reset because its code was updated.");
    });
    const applied = await s.engine(unreachable).apply({ ...at(scope), plan: s.plan("a", "b") });
    expect(applied.run.status).toBe("failed");
    // Nothing of the run's was written: not an unknown outcome.
    expect(applied.lines[0]?.error?.detail?.outcome).toBeUndefined();
    expect(await s.urls(), "the other writer's A stays; B was never sent").toEqual({
      [A]: "outside",
      "my-app://oauth-callback": "ours",
    });
    expect(await s.owned(A)).toEqual({ owners: [], foreign: false });
    expect(await s.owned(B)).toEqual({ owners: [], foreign: false });
    expect(await durableIntents("preview", scope)).toEqual([]);
  });
});

describe("a GCS write refused 412 whose claims cannot be withdrawn", () => {
  it("someone else added the run's origin before its write: the rollback leaves that origin", async () => {
    const scope = freshPr();
    const origin = `https://${scope}.preview.example.com`;
    const b = await bucketWithCors([{ origin: ["https://app.example.com"], method: ["GET"] }]);
    const connection = connectionOf(`refused-gcs-${scope}`, {
      type: "gcs",
      serviceAccountKey: { secret: "REFUSED_GCS_KEY" },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        { id: "web", op: "gcs.corsOrigin", connection, params: { bucket: b.bucket, rule: "#0", origin } },
      ],
    };
    // Unreachable for the withdraw under the run's first lease, reachable again for its rollback.
    let first: number | null = null;
    const unreachable = (inner: LockProvider): LockProvider => ({
      ...inner,
      parent: async (identity) => {
        const target = await inner.parent(identity);
        return overriding(target, {
          changeOwners: async (req) => {
            first ??= req.token;
            if (req.token === first && withdrawing(req.changes, origin))
              throw new Error("the lock object is unreachable");
            return target.changeOwners(req);
          },
        });
      },
    });
    await configureHost(GCS_HOST, { holdWrites: 1 });
    const running = testEngine({
      bindings: { REFUSED_GCS_KEY: b.account.keyJson },
      combining: false,
      wrapLocks: unreachable,
    }).apply({ ...at(scope), plan });
    for (let i = 0; (await emulatorStub(GCS_HOST).stats()).heldWrites < 1; i++) {
      if (i > 10_000) throw new Error("the write was never held");
      await scheduler.wait(1);
    }
    // Between the run's read and its write, someone outside Sponson adds the same origin.
    const now = (await gcsBucket(b.bucket)) as NonNullable<Awaited<ReturnType<typeof gcsBucket>>>;
    const rule = now.cors?.[0] as { origin?: string[] };
    await seedBucket(b.bucket, {
      ...now,
      cors: [{ ...rule, origin: [...(rule.origin ?? []), origin] }],
      metageneration: now.metageneration + 1,
    });
    await emulatorStub(GCS_HOST).releaseWrites();
    await configureHost(GCS_HOST, {});
    const applied = await running;

    expect(applied.run.status).toBe("failed");
    const after = (await gcsBucket(b.bucket))?.cors?.[0] as { origin?: string[] } | undefined;
    expect(after?.origin, "the origin someone else added stays").toContain(origin);
    expect(await durableIntents("preview", scope)).toEqual([]);
  });
});
