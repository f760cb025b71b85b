/**
 * An evicted scope's `unchanged` rests on the lock as well as its ledger (docs/design.md, "Run
 * algorithm" step 6; "Evicting stale scopes"): a scope whose receipt carries evictions has each
 * item its ledger names and the provider shows checked against the parent lock's ownership, read
 * without a lease. One the lock does not name it an owner of (the state a let-go of the version
 * before left: its ledger kept the entry, the lock dropped it) is claimed back under the lease —
 * shared where others own it, its own where nobody does (never taken for a person's entry).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { ownerOf } from "../../../workers/engine/rules/ownership";
import { lockStub, lockTarget } from "../../../workers/locks/lock-target";
import { StepClock } from "../../helpers/clock";
import { appIdentity, appLockKey, freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  destroyRequest,
  evictingEngine,
  origin,
  originOwners,
  receiptOf,
  wrapParentLocks,
} from "../../helpers/eviction";
import { scopeAddress } from "../../helpers/repositories";

const DAY_MS = 24 * 60 * 60 * 1000;
const FOREIGN = "https://app.example.com";
const FIXED = "https://fixed.example.com";
const OWN = "https://{scope}.preview.example.com";
const sorted = (xs: readonly string[]) => [...xs].sort();

/**
 * The idle scope was evicted (its own origin) by `next`, both wanting FIXED; then the lock stops
 * naming `leaving` as FIXED's owners, as the previous version's let-go left it.
 */
async function evictedThenDropped(name: string, leaving: (idle: string, next: string) => string[]) {
  const list = await cappedOrigins(name, 3, [FOREIGN]);
  const clock = new StepClock();
  const engine = () => evictingEngine({ clock });
  const plan = (...urls: string[]): Plan => ({
    version: 2,
    lines: urls.map((u, i) => list.line(`l${i}`, u)),
  });
  const [idle, next] = [freshPr(), freshPr()];
  expect((await engine().apply(applyRequest(plan(FIXED, OWN), idle))).run.status).toBe("succeeded");
  clock.jump(10 * DAY_MS);
  expect((await engine().apply(applyRequest(plan(FIXED, OWN), next))).run.status).toBe("succeeded");
  expect((await receiptOf(idle)).evictions).toMatchObject([{ keys: [origin(idle)] }]);

  const key = await appLockKey(list.domain);
  const grant = await lockTarget(env, key, appIdentity(list.domain)).acquire({
    holder: "by-hand",
    ttlMs: 60_000,
  });
  if (!grant.ok) throw new Error(grant.error.message);
  const token = grant.value.token;
  const changes = leaving(idle, next).map((s) => ({
    op: "auth0.webOrigin",
    key: FIXED,
    action: "remove" as const,
    owner: ownerOf(scopeAddress("preview", s)),
  }));
  expect((await lockStub(env, key).changeOwners({ key, holder: "by-hand", token, changes })).ok).toBe(true);
  await lockStub(env, key).release({ key, holder: "by-hand", token });
  expect((await receiptOf(idle)).ledger.map((e) => e.key)).toEqual([FIXED]);
  return { ...list, engine, plan, idle, next };
}

describe("an evicted scope's unchanged items are checked against the lock", () => {
  it("the lock names only the other scope: the idle scope's apply claims the URL back (shared), and the other's destroy leaves it", async () => {
    const w = await evictedThenDropped("ev-claims-back", (idle) => [idle]);
    expect(await originOwners(w.domain, FIXED)).toEqual([w.next]);

    const again = await w.engine().apply(applyRequest(w.plan(FIXED), w.idle));
    expect(again.run.status).toBe("succeeded");
    expect(again.lines.map((l) => l.result)).toEqual(["shared"]);
    expect(await originOwners(w.domain, FIXED)).toEqual(sorted([w.idle, w.next]));
    // Its ledger keeps the entry as it was (nothing was written).
    expect((await receiptOf(w.idle)).ledger.map((e) => e.key)).toEqual([FIXED]);

    expect((await w.engine().destroy(destroyRequest(w.next))).run.status).toBe("succeeded");
    // The model: the idle scope's last apply wants FIXED.
    expect(sorted(await w.origins())).toEqual(sorted([FOREIGN, FIXED]));
  }, 60_000);

  it("the lock names nobody: the URL is claimed back as the idle scope's own, not a person's, and its destroy removes it", async () => {
    const w = await evictedThenDropped("ev-claims-own", (idle, next) => [idle, next]);
    expect(await originOwners(w.domain, FIXED)).toEqual([]);

    const again = await w.engine().apply(applyRequest(w.plan(FIXED), w.idle));
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged"]);
    const key = await appLockKey(w.domain);
    const row = (await lockStub(env, key).ownership({ key })).items.find((i) => i.key === FIXED);
    expect(row).toMatchObject({ owners: [ownerOf(scopeAddress("preview", w.idle))], foreign: false });

    expect((await w.engine().destroy(destroyRequest(w.idle))).run.status).toBe("succeeded");
    expect(await w.origins()).not.toContain(FIXED);
  }, 60_000);

  it("the lock still names the idle scope: unchanged, after one read-only ownership read and no parent lease; a scope never evicted reads nothing", async () => {
    const w = await evictedThenDropped("ev-claims-none", () => []);
    const calls: string[] = [];
    const recording = wrapParentLocks(
      (t) =>
        Object.fromEntries(
          Object.entries(t).map(([k, v]) => [
            k,
            typeof v === "function"
              ? (...args: unknown[]) => {
                  calls.push(k);
                  return (v as (...a: unknown[]) => unknown)(...args);
                }
              : v,
          ]),
        ) as typeof t,
    );
    const again = await evictingEngine({ wrapLocks: recording }).apply(applyRequest(w.plan(FIXED), w.idle));
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged"]);
    expect(calls).toEqual(["ownership"]);

    // Control: the other scope carries no eviction, and its unchanged re-apply asks the lock nothing.
    calls.length = 0;
    const other = await evictingEngine({ wrapLocks: recording }).apply(
      applyRequest(w.plan(FIXED, OWN), w.next),
    );
    expect(other.lines.map((l) => l.result)).toEqual(["unchanged", "unchanged"]);
    expect(calls).toEqual([]);
  }, 60_000);
});
