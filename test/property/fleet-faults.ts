/**
 * A fleet step's fault (./fleet-model.ts) as the engine's fault hook: a crash, a lease taken away
 * (an admin force-release), provider failures, slow, hung or late-landing provider writes (their
 * retries refused, or answered), another writer updating the API key right before a PATCH, an API
 * key update's Operation that never ends in time (it lands late) or ends with an error. The hook is awaited
 * by the engine, so what it does happens exactly at its point of the run: a force-release of the
 * scope lock is followed, before the stale run goes on, by a recovery of the scope that holds the
 * scope lease (and, where the stale run holds no parent lease, runs to its end).
 */

import { env } from "cloudflare:workers";
import type { RunResult } from "../../shared/schemas/run";
import { DEFAULT_RETRY } from "../../workers/adapters/http/provider-request";
import type { FaultHook, FaultPoint } from "../../workers/engine/deps";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { refuseAskingAgain } from "../../workers/locks/ask-guard";
import { lockTarget, readLock } from "../../workers/locks/lock-target";
import { configureHost, emulatorStub } from "../helpers/emulators";
import { endLockDelay, expireLeaseNow, metaValue } from "../helpers/locks";
import { APIKEY_OBJECT, type Fault, MAX_SCOPES, OBJECTS } from "./fleet-model";
import {
  type FleetWorld,
  forceRelease,
  landApiKeyOperations,
  outsideUpdate,
  parentKey,
  scopeKey,
  setApiKeyOperations,
} from "./fleet-world";

/** Points inside a parent lease: a recovery started there waits for the stale run's parent lease. */
const UNDER_PARENT = new Set<FaultPoint>([
  "after-acquire",
  "after-intent",
  "after-owners",
  "after-write",
  "after-report",
]);

/** A provider request that takes longer than any lease (the emulator's maximum latency). */
export const HUNG_MS = 60_000;

export interface FaultState {
  fired: boolean;
  /** A recovery the fault started: awaited before the step ends. */
  recovery: Promise<unknown> | null;
  /** Knobs set on a tenant that the step must reset. */
  tenants: Set<number>;
  /** Tenants holding a write answered as lost, to land once the run ended. */
  late: Set<number>;
  /** The objects those writes are of (the object of the group whose write it was). */
  lateObjects: Set<number>;
  /** Tenants whose objects a provider failure may have left in a lock-delay (an unknown outcome). */
  quiet: Set<number>;
}

export interface FaultContext {
  world: FleetWorld;
  scope: number;
  /** The object whose identity (parent) is `parent`. */
  objectOfParent(parent: string): number;
  recover(scope: number): Promise<unknown>;
}

async function until(what: () => Promise<boolean>, boundMs: number): Promise<void> {
  const end = Date.now() + boundMs;
  while (Date.now() < end) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function faultHook(ctx: FaultContext, fault: Fault, state: FaultState): FaultHook {
  let seen = 0;
  return async (point, detail) => {
    // Slow writes and the other writer's create are the emulator's, not the engine's hook's.
    if (fault.kind === "none" || fault.kind === "slow" || fault.kind === "outside-create") return;
    // The object by the change's parent: a recovered intent's line may name another object today.
    const object = detail.parent ? ctx.objectOfParent(detail.parent) : 0;
    const tenant = OBJECTS[object]?.tenant ?? 0;
    if (fault.kind === "fail-write") {
      if (point !== "after-intent") return;
      if (++seen !== fault.nth) return;
      state.fired = true;
      state.tenants.add(tenant);
      state.quiet.add(tenant);
      await configureHost(ctx.world.domains[tenant] as string, {
        failures: [{ status: fault.status, count: DEFAULT_RETRY.maxAttempts, on: "write" }],
      });
      return;
    }
    if (fault.kind === "late-write") {
      if (point !== "after-intent") return;
      if (++seen !== fault.nth) return;
      state.fired = true;
      state.tenants.add(tenant);
      state.late.add(tenant);
      state.lateObjects.add(object);
      state.quiet.add(tenant);
      // The write about to be sent is kept; its retries are refused, or (status null) answered.
      const refused =
        fault.status === null ? [] : [{ status: fault.status, count: DEFAULT_RETRY.maxAttempts }];
      await configureHost(ctx.world.domains[tenant] as string, {
        lateWrites: 1,
        failuresAfterLateWrite: refused.map((f) => ({ ...f, on: "write" as const })),
      });
      return;
    }
    if (fault.kind === "outside-update") {
      // Between the run's claims under the lease and its PATCH: the etag it carries is stale.
      if (point !== "after-owners" || object !== APIKEY_OBJECT) return;
      if (++seen !== fault.nth) return;
      state.fired = true;
      await outsideUpdate(ctx.world);
      return;
    }
    if (fault.kind === "operation") {
      if (point !== "after-intent" || object !== APIKEY_OBJECT) return;
      if (++seen !== fault.nth) return;
      state.fired = true;
      state.tenants.add(tenant);
      if (fault.ends === "pending") {
        // It may land after the run ended: at the latest moment the lock lets it, as a late write.
        state.late.add(tenant);
        state.lateObjects.add(object);
        state.quiet.add(tenant);
      }
      await setApiKeyOperations(ctx.world, {
        pendingPolls: fault.ends === "pending" ? "never" : 0,
        ...(fault.ends === "error" ? { error: { code: 3, message: "Referrer pattern is not valid." } } : {}),
        count: 1,
      });
      return;
    }
    if (fault.kind === "hung") {
      if (point !== fault.point || state.fired) return;
      state.fired = true;
      state.tenants.add(tenant);
      await configureHost(ctx.world.domains[tenant] as string, { latencyMs: HUNG_MS });
      return;
    }
    if (point !== fault.point || ++seen !== fault.nth) return;
    state.fired = true;
    if (fault.kind === "crash") throw new SimulatedCrash(point);
    if (fault.kind === "parent-lost") {
      // Only where the run holds the parent lease: elsewhere the lock may be another run's, whose
      // loss would be a fault aimed at it that the model does not know of.
      if (UNDER_PARENT.has(point))
        await forceRelease(await parentKey(ctx.world, object), "property: parent lease lost");
      return;
    }
    // scope-lost: an admin takes the scope lock away and a recovery of the scope is served first.
    const key = scopeKey(ctx.world, ctx.scope);
    const stale = detail.runId;
    await forceRelease(key, "property: scope lease lost");
    const recovery = ctx.recover(ctx.scope);
    state.recovery = recovery.catch(() => {});
    if (UNDER_PARENT.has(point)) {
      // The recovery needs the parent lease the stale run holds: it goes on once it holds the scope lease.
      await until(async () => {
        const lock = await readLock(env, key);
        return lock.held && lock.holder !== stale;
      }, 5_000);
    } else {
      await recovery.catch(() => {});
    }
  };
}

/**
 * Lands the writes answered as lost once the run that sent them ended (and any rollback it made),
 * at the latest moment the lock lets them (docs/design.md, "What this guarantees": a request lands
 * within the request timeout of being sent, or never): while the object's lease is still held (left
 * to expire) or its lock-delay keeps everyone out, they land now, before any next holder's read.
 * Where nothing keeps the next holder out (the lease was released in time), a real late landing may
 * come after the next holder's write: it is deferred until the next group has run
 * (`landDeferredWrites`), and a run that wrongly took its write as clean has lost that holder's
 * entry (or brought back one it removed). Then the time passes that a real late landing would be
 * given: every parent lease a run left to expire ends, with its lock-delay, before the next step.
 */
export async function landLateWrites(world: FleetWorld, state: FaultState): Promise<void> {
  for (const tenant of state.late) {
    const objects = [...state.lateObjects].filter((o) => OBJECTS[o]?.tenant === tenant);
    const kept = await Promise.all(objects.map(async (o) => keptOut(await parentKey(world, o))));
    if (kept.every(Boolean)) {
      world.late.landed += await landNow(world, tenant);
    } else {
      world.late.deferred.add(tenant);
      state.quiet.delete(tenant);
    }
  }
  // A fault's writes were to the tenant's objects: every one still held, or quiet, ends here.
  for (const [object, o] of OBJECTS.entries()) {
    if (!state.quiet.has(o.tenant)) continue;
    const key = await parentKey(world, object);
    // Read without a grant: a lease past its TTL ends here with its lock-delay, which ends too.
    if ((await readLock(env, key)).held) await expireLeaseNow(key);
    await endLockDelay(key);
  }
  state.late.clear();
  state.lateObjects.clear();
  state.quiet.clear();
}

/**
 * The evicted scopes' leases a run abandoned end here, with their lock-delay: the time passes that a
 * real history gives them, as for the parent leases `landLateWrites` ends. docs/design.md,
 * "Evicting stale scopes": a write whose outcome is unknown abandons the lease of every scope held
 * for eviction, never releases it, and it ends by expiry with the lock-delay after it (`LOCK_HELD`
 * to that scope's next run until then). Exactly those, and only once the run has ended: a scope
 * lock of another scope held by this run, whose result says the outcome is unknown, and whose
 * lease the run's own client gave up (ask-guard.ts refuses its holder asking again, "abandoned";
 * lease.ts `abandon`: no more renewals). Any other lock a run leaves held stays for `checkQuiet`.
 */
export async function endAbandonedEvictions(
  world: FleetWorld,
  scope: number,
  result: RunResult | undefined,
): Promise<void> {
  if (result?.run.error?.detail?.outcome !== "unknown") return;
  const holder = result.run.id;
  for (let other = 0; other < MAX_SCOPES; other++) {
    if (other === scope) continue;
    const key = scopeKey(world, other);
    const lock = await readLock(env, key);
    if (!lock.held || lock.holder !== holder || !abandonedBy(key, holder, world.clock.now())) continue;
    await expireLeaseNow(key);
    await endLockDelay(key);
  }
}

/** Whether `holder`'s client abandoned its lease on `key` (it refuses to ask for it again, saying so). */
function abandonedBy(key: string, holder: string, now: number): boolean {
  try {
    refuseAskingAgain(lockTarget(env, key), holder, now);
    return false;
  } catch (err) {
    return err instanceof Error && err.message.includes(`${holder} abandoned its lease`);
  }
}

/**
 * The late writes of `tenants`, deferred by `landLateWrites` before the group that just ran, land
 * now: after that group's writes.
 */
export async function landDeferredWrites(world: FleetWorld, tenants: ReadonlySet<number>): Promise<void> {
  for (const tenant of tenants) {
    const landed = await landNow(world, tenant);
    world.late.landed += landed;
    world.late.deferredLanded += landed;
  }
}

/** The tenant's writes kept as late, and on the API key's host its pending operations, applied now. */
async function landNow(world: FleetWorld, tenant: number): Promise<number> {
  const landed = await emulatorStub(world.domains[tenant] as string).landLateWrites();
  return landed + (tenant === OBJECTS[APIKEY_OBJECT].tenant ? await landApiKeyOperations(world) : 0);
}

/** Whether the lock keeps every next holder out now: a lease still held, or a lock-delay in force. */
async function keptOut(key: string): Promise<boolean> {
  if ((await readLock(env, key)).held) return true;
  return Number((await metaValue(key, "quiet_until")) ?? "0") > Date.now();
}

export async function resetTenants(world: FleetWorld, state: FaultState): Promise<void> {
  await Promise.all([...state.tenants].map((t) => configureHost(world.domains[t] as string, {})));
  // An Operation fault armed for a write the run never sent must not meet a later step's.
  if (state.tenants.has(OBJECTS[APIKEY_OBJECT].tenant)) await setApiKeyOperations(world, null);
  state.tenants.clear();
}
