/**
 * A fleet step's fault (./fleet-model.ts) as the engine's fault hook: a crash, a lease taken away
 * (an admin force-release), provider failures, slow, hung or late-landing provider writes. The hook is awaited
 * by the engine, so what it does happens exactly at its point of the run: a force-release of the
 * scope lock is followed, before the stale run goes on, by a recovery of the scope that holds the
 * scope lease (and, where the stale run holds no parent lease, runs to its end).
 */

import { env } from "cloudflare:workers";
import { DEFAULT_RETRY } from "../../workers/adapters/http/provider-request";
import { type FaultHook, type FaultPoint, SimulatedCrash } from "../../workers/engine/deps";
import { readLock } from "../../workers/locks/lock-target";
import { configureHost, emulatorStub } from "../helpers/emulators";
import { endLockDelay, expireLeaseNow } from "../helpers/locks";
import { type Fault, OBJECTS } from "./fleet-model";
import { type FleetWorld, forceRelease, parentKey, scopeKey } from "./fleet-world";

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
      await configureHost(ctx.world.domains[tenant] as string, {
        lateWrites: 1,
        failuresAfterLateWrite: [{ status: fault.status, count: DEFAULT_RETRY.maxAttempts, on: "write" }],
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
 * Lands the writes answered as lost, after the run that sent them ended (and any rollback it made),
 * then lets the time pass that a real late landing would be given: every parent lease a run left
 * to expire ends, with its lock-delay (docs/design.md, "Lock-delay"), as it would before the
 * next holder's grant. A run that wrongly took the refusal as "nothing was written" has released
 * its lease and resolved its intents by now: the landing is then an entry no receipt names.
 */
export async function landLateWrites(world: FleetWorld, state: FaultState): Promise<void> {
  for (const tenant of state.late) await emulatorStub(world.domains[tenant] as string).landLateWrites();
  // The late write is the tenant's next write, whichever of its objects that was: every one still held.
  for (const [object, o] of OBJECTS.entries()) {
    if (!state.late.has(o.tenant)) continue;
    const key = await parentKey(world, object);
    // Read without a grant: a lease past its TTL ends here with its lock-delay, which ends too.
    if ((await readLock(env, key)).held) await expireLeaseNow(key);
    await endLockDelay(key);
  }
  state.late.clear();
}

export async function resetTenants(world: FleetWorld, state: FaultState): Promise<void> {
  await Promise.all([...state.tenants].map((t) => configureHost(world.domains[t] as string, {})));
  state.tenants.clear();
}
