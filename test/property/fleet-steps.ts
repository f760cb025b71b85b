/**
 * Runs one fleet step (./fleet-model.ts) against the real engine (createEngine: real lease objects,
 * R2 receipts, the provider emulators; no HTTP layer), one engine per step with its own fault hook.
 * Retry backoff sleeps return at once; everything else is real time.
 */

import { env } from "cloudflare:workers";
import { EMULATOR_NOW_HEADER } from "../../dev/emulators/knobs";
import { SponsonError } from "../../shared/errors";
import type { LineResult, RunResult } from "../../shared/schemas/run";
import type { FaultHook, LockProvider } from "../../workers/engine/deps";
import { ownerOf } from "../../workers/engine/rules/ownership";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { lockStub, readLock } from "../../workers/locks/lock-target";
import { configureHost } from "../helpers/emulators";
import { overriding } from "../helpers/lock-overrides";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";
import { EVICTING_ENVIRONMENTS } from "./fleet-evictions";
import {
  endAbandonedEvictions,
  type FaultState,
  faultHook,
  landLateWrites,
  resetTenants,
} from "./fleet-faults";
import { CONNECTIONS_OF_TENANT, type LineSpec, OBJECTS, type Step, TENANTS } from "./fleet-model";
import {
  APIKEY_SECRET_BINDING,
  armOutsideCreate,
  CLERK_SECRET_BINDING,
  CLERK_SECRET_KEY,
  ENVIRONMENT,
  type FleetWorld,
  identityOf,
  parentKey,
  planOf,
  seeingOutsideCreates,
} from "./fleet-world";

/**
 * Longer than a lease's TTL plus the lock-delay after its expiry: a run whose write had an unknown
 * outcome leaves its parent lease to expire (docs/design.md, "Lease protocol"), and a run waiting
 * behind it in the same group is granted only after both, with no fault of its own.
 */
const WAIT_TIMEOUT_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The combining waiter's wait: shorter than the holder's stall (COMBINE_STALL_MS), so it gives up while taken. */
export const WAITER_TIMEOUT_MS = 700;
const COMBINE_STALL_MS = 1_500;

export interface RunOutcome {
  scope: number;
  /** The plan the run applied (null: a destroy). */
  plan: LineSpec[] | null;
  result?: RunResult;
  crashed: boolean;
  /** A problem answer instead of a run (the engine threw). */
  thrown?: { code: string; message: string };
  /** Whether the step's fault was met. */
  faultFired: boolean;
  /** A recovery of the scope ran after the run's lines were given (its lease was taken away). */
  recoveredMeanwhile?: boolean;
  /** The run was the waiter of a combining step: it may fail, as its wait is short on purpose. */
  shortWait?: boolean;
  /** Every line the run reported as it went (a crashed run reports no result). */
  lines: LineResult[];
}

export function engineFor(
  world: FleetWorld,
  faults?: FaultHook,
  wrapLocks?: (inner: LockProvider) => LockProvider,
) {
  return testEngine({
    clock: world.clock,
    bindings: {
      [CLERK_SECRET_BINDING]: CLERK_SECRET_KEY,
      [APIKEY_SECRET_BINDING]: world.apiKey.keyJson,
      ...(world.evicting ? { SPONSON_ENVIRONMENTS: EVICTING_ENVIRONMENTS } : {}),
    },
    ...(faults ? { faults } : {}),
    ...(wrapLocks ? { wrapLocks } : {}),
    wrapFetch: (inner) => seeingOutsideCreates(world)(stampedWith(world, inner)),
  });
}

/** Every provider request stamped with the world's clock: days pass for the emulators too. */
function stampedWith(world: FleetWorld, inner: typeof fetch): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    request.headers.set(EMULATOR_NOW_HEADER, String(world.clock.now()));
    return inner(request);
  };
}

/**
 * The `withdrawLost` variant of `outside-create`: under a parent lease whose claims made `scope` an
 * owner of one of its race URLs, a later ownership change taking the scope off one of them (the
 * withdraw after the refusal) never reaches the lock object. Leases taken after it (the rollback's,
 * a recovery's) reach it as usual.
 */
function withdrawUnreachable(world: FleetWorld, scope: number): (inner: LockProvider) => LockProvider {
  const me = ownerOf(scopeAddress(ENVIRONMENT, world.scopeName(scope)));
  const race = `https://${world.scopeName(scope)}.preview.example.com/race/`;
  const claimedUnder = new Set<number>();
  return (inner) => ({
    ...inner,
    parent: async (identity) => {
      const target = await inner.parent(identity);
      return overriding(target, {
        changeOwners: async (req) => {
          const mine = (action: string) =>
            req.changes.some(
              (c) => c.action === action && "owner" in c && c.owner === me && c.key.startsWith(race),
            );
          if (claimedUnder.has(req.token) && mine("remove"))
            throw new Error("the lock object is unreachable (fleet fault: withdraw lost)");
          if (mine("add")) claimedUnder.add(req.token);
          return target.changeOwners(req);
        },
      });
    },
  });
}

export function request(world: FleetWorld, scope: number, waitTimeoutMs = WAIT_TIMEOUT_MS) {
  return {
    repository: DEFAULT_REPOSITORY,
    environment: ENVIRONMENT,
    scope: world.scopeName(scope),
    wait: true,
    waitTimeoutMs,
  };
}

export function recoverScope(world: FleetWorld, scope: number): Promise<RunResult> {
  return engineFor(world).recover(request(world, scope));
}

/** A big plan: `count` URLs of the scope's own on one object, one list. */
export function bigPlan(object: number, count: number): LineSpec[] {
  const connection = CONNECTIONS_OF_TENANT[OBJECTS[object]?.tenant ?? 0]?.[0] ?? 0;
  return Array.from({ length: count }, (_, i) => ({
    label: `big-${i}`,
    op: "auth0.callbackUrl" as const,
    url: `https://{scope}.preview.example.com/big/${i}`,
    object,
    connection,
  }));
}

interface Runnable {
  scope: number;
  plan: LineSpec[] | null;
  hook?: FaultHook;
  wrapLocks?: (inner: LockProvider) => LockProvider;
  state: FaultState;
  waitTimeoutMs?: number;
}

async function runOne(world: FleetWorld, r: Runnable): Promise<RunOutcome> {
  const lines: LineResult[] = [];
  const emit = (event: { type: string; line?: LineResult }) => {
    if (event.type === "line" && event.line) lines.push(event.line);
  };
  const engine = engineFor(world, r.hook, r.wrapLocks);
  const req = request(world, r.scope, r.waitTimeoutMs);
  const base = { scope: r.scope, plan: r.plan, lines };
  let result: RunResult | undefined;
  try {
    result = r.plan
      ? await engine.apply({ ...req, plan: planOf(world, r.plan), allowEmpty: true }, emit)
      : await engine.destroy(req, emit);
    return {
      ...base,
      result,
      crashed: false,
      faultFired: r.state.fired,
      recoveredMeanwhile: r.state.recovery !== null,
    };
  } catch (err) {
    if (err instanceof SimulatedCrash) return { ...base, crashed: true, faultFired: true };
    const code = err instanceof SponsonError ? err.code : "UNEXPECTED";
    const message = err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err);
    return { ...base, crashed: false, thrown: { code, message }, faultFired: r.state.fired };
  } finally {
    await r.state.recovery;
    await landLateWrites(world, r.state);
    await endAbandonedEvictions(world, r.scope, result);
    await resetTenants(world, r.state);
  }
}

function freshState(): FaultState {
  return {
    fired: false,
    recovery: null,
    tenants: new Set(),
    late: new Set(),
    lateObjects: new Set(),
    quiet: new Set(),
  };
}

/** Runs one step; a combining step answers for both of its runs, days passing for none. */
export async function runStep(world: FleetWorld, step: Step): Promise<RunOutcome[]> {
  if (step.action === "combine-timeout") return runCombineTimeout(world, step);
  if (step.action === "combine") return runCombined(world, step);
  if (step.action === "idle") {
    world.clock.advance(step.days * DAY_MS);
    return [];
  }
  const plan =
    step.action === "apply"
      ? step.lines
      : step.action === "apply-big"
        ? bigPlan(step.object, step.count)
        : null;
  const state = freshState();
  const hook = faultHook(
    {
      world,
      scope: step.scope,
      objectOfParent: (parent) =>
        Math.max(
          0,
          OBJECTS.findIndex((_, o) => identityOf(world, o) === parent),
        ),
      recover: (scope) => recoverScope(world, scope),
    },
    step.fault,
    state,
  );
  if (step.fault.kind === "slow") {
    state.fired = true;
    for (let t = 0; t < TENANTS; t++) state.tenants.add(t);
    const latencyMs = step.fault.latencyMs;
    await Promise.all(world.domains.map((d) => configureHost(d, { latencyMs })));
  }
  // The other writer is the emulator's (the Clerk race hook): whichever run POSTs the URL meets it.
  const disarm =
    step.fault.kind === "outside-create" ? await armOutsideCreate(world, step.scope, step.fault.nth) : null;
  const wrapLocks =
    step.fault.kind === "outside-create" && step.fault.withdrawLost
      ? withdrawUnreachable(world, step.scope)
      : undefined;
  const outcome = await runOne(world, {
    scope: step.scope,
    plan,
    hook,
    state,
    ...(wrapLocks ? { wrapLocks } : {}),
  });
  if (disarm && (await disarm())) {
    state.fired = true;
    outcome.faultFired = true;
  }
  return [outcome];
}

/**
 * The holder queues for the object's parent lease behind a stand-in that holds it, and the waiter
 * queues behind the holder with its lines (write combining); the stand-in lets go, so the holder's
 * grant is a handoff whose claim takes the waiter's changes in its step (docs/design.md, "Write
 * combining: the lock object's side"). The tenant then answers slowly, so the holder is still
 * reading and writing when the waiter's short wait ends while its changes are taken.
 */
async function runCombineTimeout(world: FleetWorld, step: Extract<Step, { action: "combine-timeout" }>) {
  const object = step.lines[0]?.object ?? 0;
  const tenant = OBJECTS[object]?.tenant ?? 0;
  const domain = world.domains[tenant] as string;
  const holderState = freshState();
  const waiterState = freshState();
  const key = await parentKey(world, object);
  const lock = lockStub(env, key);
  const standIn = await lock.acquire({ key, holder: "fleet-stand-in", ttlMs: 60_000 });
  if (!standIn.ok) throw new Error(`the stand-in could not take ${key}: ${standIn.error.message}`);
  let waiter: Promise<RunOutcome> | null = null;
  let holding = true;
  const letGo = async () => {
    if (!holding) return;
    holding = false;
    await lock.release({ key, holder: "fleet-stand-in", token: standIn.value.token });
  };
  try {
    const holderRun = runOne(world, { scope: step.scope, plan: step.lines, state: holderState });
    if (await queued(key, 1)) {
      holderState.fired = true;
      waiter = runOne(world, {
        scope: step.waiter,
        plan: step.waiterLines,
        state: waiterState,
        waitTimeoutMs: WAITER_TIMEOUT_MS,
      });
      if (await queued(key, 2)) {
        await configureHost(domain, { latencyMs: COMBINE_STALL_MS });
        void waiter.finally(() => configureHost(domain, {}));
      }
    }
    await letGo();
    const holder = await holderRun;
    await configureHost(domain, {});
    const other = await (waiter ??
      runOne(world, { scope: step.waiter, plan: step.waiterLines, state: waiterState }));
    return [holder, { ...other, faultFired: holderState.fired, shortWait: true }];
  } finally {
    await letGo();
  }
}

/**
 * The holder queues for the object's parent lease behind a stand-in, the waiter behind it with its
 * changes; the stand-in lets go, so the holder's claim takes the waiter's changes and its one write
 * carries them (an evicting write, when the holder's own changes need room). Both wait as any run.
 */
async function runCombined(world: FleetWorld, step: Extract<Step, { action: "combine" }>) {
  const object = step.lines[0]?.object ?? step.waiterLines[0]?.object ?? 0;
  const key = await parentKey(world, object);
  const lock = lockStub(env, key);
  const standIn = await lock.acquire({ key, holder: "fleet-stand-in", ttlMs: 60_000 });
  if (!standIn.ok) throw new Error(`the stand-in could not take ${key}: ${standIn.error.message}`);
  let released: Promise<unknown> | null = null;
  const letGo = () => {
    released ??= lock.release({ key, holder: "fleet-stand-in", token: standIn.value.token });
    return released;
  };
  const [holderState, waiterState] = [freshState(), freshState()];
  try {
    const holder = runOne(world, { scope: step.scope, plan: step.lines, state: holderState });
    // A holder with no line there never queues: the waiter then goes first.
    await queued(key, step.lines.length > 0 ? 1 : 0);
    const waiter = runOne(world, { scope: step.waiter, plan: step.waiterLines, state: waiterState });
    await queued(key, (step.lines.length > 0 ? 1 : 0) + (step.waiterLines.length > 0 ? 1 : 0));
    await letGo();
    return await Promise.all([holder, waiter]);
  } finally {
    await letGo();
  }
}

/** Whether `count` runs wait for `key` with changes to hand over, within a few seconds. */
async function queued(key: string, count: number): Promise<boolean> {
  const end = Date.now() + 5_000;
  while (Date.now() < end) {
    const lock = await readLock(env, key);
    if (lock.waiters.filter((w) => (w.changes ?? 0) > 0).length >= count) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}
