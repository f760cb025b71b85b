/**
 * Runs a history (./history-model.ts) against the real engine: createEngine over the test
 * Worker's bindings (lease objects, R2 receipts, the Auth0 emulator), one engine per step so each
 * step has its own fault hook. Retry backoff sleeps return at once; everything else is real time.
 */
import { type Clock, systemClock } from "../../shared/clock";
import { SponsonError } from "../../shared/errors";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { DEFAULT_RETRY } from "../../workers/adapters/http/provider-request";
import type { FaultHook } from "../../workers/engine/deps";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { configureHost } from "../helpers/emulators";
import { appLockKey } from "../helpers/engine";
import { endLockDelay } from "../helpers/locks";
import { auth0Plan } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";
import { LINES, type Step } from "./history-model";

export const ENVIRONMENT = "preview";
/** Concurrent steps wait for each other's locks; generous, as a wait should never take long here. */
const WAIT_TIMEOUT_MS = 30_000;

/** Real time for leases and deadlines; a provider retry's backoff does not really wait. */
export const instantBackoffClock: Clock = { ...systemClock, sleep: async () => {} };

export interface World {
  domain: string;
  scopeName(index: number): string;
}

export interface StepOutcome {
  step: Step;
  /** The run's answer; absent when the run crashed or was refused. */
  result?: RunResult;
  /** Refused before any run started (a rollback with nothing to roll back: NOT_FOUND). */
  refused?: string;
  crashed: boolean;
  /** Whether the step's fault was met (a crash thrown, failures armed before the write). */
  faultFired: boolean;
}

export function planFor(world: World, lines: readonly number[]): Plan {
  return auth0Plan(
    world.domain,
    lines.map((i) => {
      const line = LINES[i];
      if (!line) throw new Error(`no line ${i}`);
      return { id: line.id, op: line.op, url: line.url };
    }),
  );
}

/** More failures than the adapter's retry budget: the call fails for good. */
function failures(status: number, on: "read" | "write") {
  return { failures: [{ status, count: DEFAULT_RETRY.maxAttempts, on }] };
}

export async function runStep(world: World, step: Step): Promise<StepOutcome> {
  const fault = step.fault;
  let seen = 0;
  let faultFired = false;
  const faults: FaultHook = async (point) => {
    if (fault.kind === "crash" && point === fault.point) {
      seen += 1;
      if (seen === fault.nth) {
        faultFired = true;
        throw new SimulatedCrash(point);
      }
    }
    if (fault.kind === "fail-write" && point === "after-intent") {
      seen += 1;
      // Armed between the intent and the write: the very next PATCH on this host is this one
      // (steps with provider failures run alone).
      if (seen === fault.nth) {
        faultFired = true;
        await configureHost(world.domain, failures(fault.status, "write"));
      }
    }
  };
  if (fault.kind === "fail-read") {
    faultFired = true;
    await configureHost(world.domain, failures(fault.status, "read"));
  }
  // The plan first: it registers the world's connection, which the engine reads from its env.
  const plan = step.action === "apply" ? planFor(world, step.lines) : null;
  const engine = testEngine({ clock: instantBackoffClock, faults });
  const req = {
    repository: DEFAULT_REPOSITORY,
    environment: ENVIRONMENT,
    scope: world.scopeName(step.scope),
    wait: true,
    waitTimeoutMs: WAIT_TIMEOUT_MS,
  };
  try {
    const result =
      step.action === "apply"
        ? await engine.apply({ ...req, plan: plan ?? planFor(world, step.lines), allowEmpty: true })
        : step.action === "destroy"
          ? await engine.destroy(req)
          : await engine.rollback(req);
    return { step, result, crashed: false, faultFired };
  } catch (err) {
    if (err instanceof SimulatedCrash) return { step, crashed: true, faultFired };
    if (step.action === "rollback" && err instanceof SponsonError && err.code === "NOT_FOUND") {
      return { step, refused: err.code, crashed: false, faultFired };
    }
    throw err;
  } finally {
    if (fault.kind === "fail-read" || fault.kind === "fail-write") await configureHost(world.domain, {});
    // A write that failed 5xx past the budget ends its lease quietly (it may have been applied):
    // the time a late landing is given passes here, not in the next step's wait.
    if (fault.kind === "fail-write" && faultFired) await endLockDelay(await appLockKey(world.domain));
  }
}

/** The recovery pass after a history: resolves what crashed runs left, on every scope touched. */
export async function recoverAll(world: World, scopes: readonly number[]): Promise<RunResult[]> {
  const engine = testEngine({ clock: instantBackoffClock });
  return Promise.all(
    scopes.map((i) =>
      engine.recover({
        repository: DEFAULT_REPOSITORY,
        environment: ENVIRONMENT,
        scope: world.scopeName(i),
        wait: true,
        waitTimeoutMs: WAIT_TIMEOUT_MS,
      }),
    ),
  );
}
