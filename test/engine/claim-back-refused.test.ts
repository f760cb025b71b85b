/**
 * A claim-back whose own write was refused (docs/design.md, "Evicting stale scopes"; "A send of
 * several requests refused half-way"). A scope whose ledger names an entry the lock no longer names
 * it an owner of claims it back (`inLedger`): present and owned by nobody, it is the scope's own.
 * But when the entry is found absent under the lease, the run POSTs it, and Clerk refuses the POST
 * as a duplicate (someone created it in between), the entry decided again is someone else's: this
 * run wrote nothing there. It is joined as foreign, and the scope's destroy leaves it.
 *
 * When that claim cannot be withdrawn, the run's intent is marked `refused`, and its rollback only
 * leaves the item — also here, where the scope's ledger still holds it ("Intent recovery").
 *
 * The eviction is staged directly (the scope's ownership taken away at the lock, an eviction note in
 * its receipt); the entry disappears right before the run's parent lease and is created by someone
 * else right before the run's POST (the emulator's ClerkRace hook).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OUTSIDE_ID_PREFIX } from "../../dev/emulators/clerk";
import { parentLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import type { LockProvider } from "../../workers/engine/deps";
import { ownerOf } from "../../workers/engine/rules/ownership";
import { type LockTarget, lockStub, lockTarget } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { clerkInstanceWith, clerkOp } from "../adapters/clerk/clerk-instance";
import { connectionOf } from "../helpers/connections";
import { freshPr, receipt } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

/** A wrapper of the lease's `changeOwners`, given the real target to pass the call on to. */
type ChangeOwnersVia = (
  req: Parameters<LockTarget["changeOwners"]>[0],
  target: LockTarget,
) => ReturnType<LockTarget["changeOwners"]>;

const OP = "clerk.redirectUrl";
const at = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});

/**
 * A scope that created its entry, then was evicted from it (staged: the lock no longer names it an
 * owner, its receipt says why). Its next apply finds the entry present before any lease, gone
 * when it takes the lease, and someone else's again right before its POST.
 */
async function evictedThenRaced() {
  const c = await clerkInstanceWith({ redirectUrls: ["my-app://oauth-callback"] });
  const secret = "CLERK_CLAIM_BACK_KEY";
  const connection = connectionOf(`claim-back-clerk-${c.instance}`, {
    type: "clerk",
    instance: c.instance,
    secretKey: { secret },
  });
  const scope = freshPr();
  const url = `https://${scope}.preview.example.com/cb`;
  const plan: Plan = { version: 2, lines: [{ id: "cb", op: OP, connection, params: { url } }] };
  const identity = `clerk:instance:${c.instance}`;
  const key = await parentLockKey(identity, new SecretRegistry());
  const me = ownerOf(scopeAddress("preview", scope));
  const engine = (wrapLocks?: (inner: LockProvider) => LockProvider) =>
    testEngine({
      bindings: { [secret]: c.secretKey },
      combining: false,
      ...(wrapLocks ? { wrapLocks } : {}),
    });
  expect((await engine().apply({ ...at(scope), plan })).lines[0]?.result).toBe("created");

  // Another run's eviction, staged: the lock no longer names the scope an owner, its receipt says why.
  const other = await lockTarget(env, key, identity).acquire({ holder: "run-evictor", ttlMs: 30_000 });
  if (!other.ok) throw new Error(other.error.message);
  await lockStub(env, key).changeOwners({
    key,
    holder: "run-evictor",
    token: other.value.token,
    changes: [{ op: OP, key: url, action: "remove", owner: me }],
  });
  await lockStub(env, key).release({ key, holder: "run-evictor", token: other.value.token });
  const store = new R2ReceiptStore(env.RECEIPTS);
  const stored = await store.read(scopeAddress("preview", scope));
  const note = {
    runId: "run-evictor",
    object: identity,
    op: OP,
    keys: [url],
    reason: "idle" as const,
    at: Date.now(),
  };
  await store.write({ ...stored.receipt, evictions: [note] }, stored.etag);

  // Present when the run reads before any lease; gone when it takes the lease; someone else's
  // again right before its POST. `changeOwners` sees each ownership change of the run's leases.
  let staged = false;
  const goneAtTheLease =
    (changeOwners?: ChangeOwnersVia) =>
    (inner: LockProvider): LockProvider => ({
      ...inner,
      parent: async (id) => {
        const target = await inner.parent(id);
        return overriding(target, {
          acquire: async (req) => {
            if (!staged) {
              staged = true;
              await clerkOp(OP).remove(c.ctx, { url }, { present: true });
              await c.raceCreate(url);
            }
            return target.acquire(req);
          },
          ...(changeOwners ? { changeOwners: (req) => changeOwners(req, target) } : {}),
        });
      },
    });
  const byOutside = async () =>
    (await c.redirectUrls()).find((r) => r.url === url)?.id.startsWith(OUTSIDE_ID_PREFIX) === true;
  return { c, scope, url, plan, key, me, engine, goneAtTheLease, staged: () => staged, byOutside };
}

describe("a claim-back whose own POST is refused", () => {
  it("takes the entry someone else created for theirs (foreign), and the scope's destroy leaves it", async () => {
    const w = await evictedThenRaced();
    const again = await w.engine(w.goneAtTheLease()).apply({ ...at(w.scope), plan: w.plan });
    expect(w.staged()).toBe(true);
    expect(again.run.status).toBe("succeeded");
    expect(again.lines[0]?.result).toBe("foreign");
    expect(await w.byOutside()).toBe(true);
    const owned = (await lockStub(env, w.key).ownership({ key: w.key })).items.find((i) => i.key === w.url);
    expect(owned).toMatchObject({ owners: [w.me], foreign: true });

    // The scope's destroy leaves the other writer's entry.
    const destroyed = await w.engine().destroy(at(w.scope));
    expect(destroyed.run.status).toBe("succeeded");
    expect((await w.c.redirectUrls()).map((r) => r.url)).toContain(w.url);
  });

  it("its claim's withdraw never reaches the lock: the intent marked refused is only left, though the ledger holds the item, and the scope's destroy leaves the entry", async () => {
    const w = await evictedThenRaced();
    let withdraws = 0;
    const unreachable: ChangeOwnersVia = async (req, target) => {
      if (
        req.changes.some((c) => c.key === w.url && c.action === "remove" && c.owner === w.me) &&
        withdraws < 5
      ) {
        withdraws += 1;
        throw new Error("Durable Object reset because its code was updated.");
      }
      return target.changeOwners(req);
    };
    const again = await w.engine(w.goneAtTheLease(unreachable)).apply({ ...at(w.scope), plan: w.plan });
    expect(w.staged()).toBe(true);
    expect(withdraws, "the withdraw is tried more than once").toBeGreaterThan(1);
    expect(again.run.status).toBe("failed");
    expect(await w.byOutside()).toBe(true);
    // The rollback resolved the refused intent by leaving: the scope neither owns nor records it.
    const owned = (await lockStub(env, w.key).ownership({ key: w.key })).items.find((i) => i.key === w.url);
    expect(owned?.owners ?? []).toEqual([]);
    const left = await receipt("preview", w.scope);
    expect({ ledger: left.ledger.map((e) => e.key), intents: left.intents }).toEqual({
      ledger: [],
      intents: [],
    });

    // The scope's destroy leaves the other writer's entry.
    const destroyed = await w.engine().destroy(at(w.scope));
    expect(destroyed.run.status).toBe("succeeded");
    expect(await w.byOutside(), "the other writer's entry stays").toBe(true);
  });
});
