/**
 * A plan with a line refused before any provider (docs/design.md, "Run algorithm", step 1): the run
 * fails without a token exchange, a provider request or a parent lease, and an apply is recorded
 * under a scope lease taken just for that one receipt read and save.
 */
import { SponsonError } from "../../../shared/errors";
import type { RunResult } from "../../../shared/schemas/run";
import { ScopeLease } from "../../locks/scope-lock";
import type { EngineDeps } from "../deps";
import { runLeaseOptions } from "../lease/lease-settings";
import type { RefusedLine } from "./admission";
import { meteredDeps } from "./metered-deps";
import { ReceiptSession } from "./receipt-session";
import { newRunId, Run, type RunStart } from "./run";
import { runWaiting, type ScopeRequest } from "./scope-request";

/**
 * An apply is still recorded in the receipt like every other failed run, and the receipt is only
 * written under the scope lease. Previews are never recorded. The record holds the run's error,
 * whose message names the line and never the value that held the secret.
 */
export async function refusedRun(
  deps: EngineDeps,
  start: Omit<RunStart, "id">,
  refused: readonly RefusedLine[],
): Promise<RunResult> {
  const now = deps.clock.now();
  const run = new Run({ ...start, id: newRunId(now) }, now, deps.logError);
  for (const { error, line, op } of refused) {
    run.line({
      id: line,
      op,
      key: "",
      parent: null,
      diff: "unchanged",
      result: "failed",
      error: error.toInfo(),
    });
  }
  if (start.action !== "preview") await recordRefused(deps, run, start.req);
  return run.result(deps.clock.now());
}

/** Records a refused run under a short scope lease; a failure to record is a warning on the run. */
async function recordRefused(engineDeps: EngineDeps, run: Run, req: ScopeRequest): Promise<void> {
  const deps = meteredDeps(engineDeps, run.metrics);
  const state = deps.gate ? await deps.gate.read(req.repository.id, req.scope) : null;
  // A closed scope takes no new receipt writes (an apply to it is refused as SCOPE_CLOSED).
  if (state?.status === "closed") {
    run.warn(`run ${run.id} was not recorded: the scope is closed`);
    return;
  }
  let lease: ScopeLease;
  try {
    lease = await ScopeLease.acquire(
      deps.locks.scope(req.repository.id, req.environment, req.scope),
      run.id,
      runLeaseOptions(deps, runWaiting(deps, req), {
        origin: run.origin,
        onWaiting: (report) => run.waiting(report),
        // A lost answer given back, a release that failed: the run's warnings, not the log's.
        onWarning: (m) => run.warn(m),
      }),
    );
  } catch (err) {
    if (!(err instanceof SponsonError)) throw err;
    run.warn(`run ${run.id} was not recorded: ${err.message}`);
    return;
  }
  let saved: string | null = null;
  try {
    // A lock of 0.1.x still keeping intents (ScopeLease.legacyIntents) keeps them through this
    // save, which resolves nothing and drops nothing: the upgrade drains them (docs/upgrading.md).
    const session = await ReceiptSession.open(deps.store, req);
    session.recordRun(run.record(deps.clock.now()));
    await session.save();
    saved = session.etag;
  } catch (err) {
    if (!(err instanceof SponsonError)) throw err;
    run.warn(`run ${run.id} was not recorded: ${err.message}`);
  } finally {
    await lease.release(saved);
  }
}
