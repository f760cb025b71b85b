/**
 * The engine as the Worker wires it (workers/wiring/wire.ts): every run it finishes is logged once
 * (./run-log.ts) and written to Analytics Engine (./run-analytics.ts). A run refused before it
 * started (a thrown problem) gets the same log line with status `refused` and its code, and no
 * data point (docs/operations.md, "Logs").
 */
import { SponsonError } from "../../shared/errors";
import type { RunResult } from "../../shared/schemas/run";
import type { SecretRegistry } from "../../shared/secrets";
import type { Emit, EngineDeps } from "../engine/deps";
import { Engine, type PlanRequest, type ScopeGuard, type ScopeRequest } from "../engine/engine";
import { RunMetrics } from "../engine/run/run-metrics";
import { writeRunPoints } from "./run-analytics";
import { refusedRunLine, runLogLine } from "./run-log";

export interface RunObserver {
  secrets: SecretRegistry;
  analytics: AnalyticsEngineDataset | undefined;
  log?: (line: string) => void;
}

export class ObservedEngine extends Engine {
  readonly #observer: RunObserver;

  constructor(deps: EngineDeps, observer: RunObserver) {
    super(deps);
    this.#observer = observer;
  }

  override apply(req: PlanRequest, emit?: Emit, guard: ScopeGuard | null = null): Promise<RunResult> {
    return this.#observed(req, "apply", (r) => super.apply(r, emit, guard));
  }

  override preview(req: PlanRequest, emit?: Emit): Promise<RunResult> {
    return this.#observed(req, "preview", (r) => super.preview(r, emit));
  }

  override destroy(req: ScopeRequest, emit?: Emit, guard: ScopeGuard | null = null): Promise<RunResult> {
    return this.#observed(req, "destroy", (r) => super.destroy(r, emit, guard));
  }

  override rollback(req: ScopeRequest & { runId?: string }, emit?: Emit): Promise<RunResult> {
    return this.#observed(req, "rollback", (r) => super.rollback(r, emit));
  }

  override recover(req: ScopeRequest, emit?: Emit): Promise<RunResult> {
    return this.#observed(req, "recover", (r) => super.recover(r, emit));
  }

  async #observed<R extends ScopeRequest>(
    req: R,
    action: string,
    run: (req: R) => Promise<RunResult>,
  ): Promise<RunResult> {
    // The run's own metrics object, so its lock waits can be read once it is done.
    const metrics = req.metrics ?? new RunMetrics();
    let result: RunResult;
    try {
      result = await run({ ...req, metrics });
    } catch (err) {
      if (err instanceof SponsonError) this.#logRefused(req, action, err.code);
      throw err;
    }
    try {
      const { secrets, analytics, log = console.log } = this.#observer;
      log(secrets.redact(JSON.stringify(runLogLine(result))));
      writeRunPoints(analytics, result, metrics.lockWaits());
    } catch (err) {
      // Observing must never fail a run that happened.
      console.error(`run observation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return result;
  }

  #logRefused(req: ScopeRequest, action: string, code: string): void {
    try {
      const { secrets, log = console.log } = this.#observer;
      log(secrets.redact(JSON.stringify(refusedRunLine(req, action, code))));
    } catch (err) {
      console.error(`run observation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
