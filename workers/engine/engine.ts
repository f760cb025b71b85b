/**
 * The engine's public face (docs/design.md, "Run algorithm"): each action admits what it can
 * without I/O (workers/engine/admission.ts), then runs under the scope lease
 * (workers/engine/under-scope.ts) with its own body.
 */

import { SponsonError } from "../../shared/errors";
import type { OrphanList, OrphanRemoval, OrphanRemovalBody } from "../../shared/schemas/orphans";
import type { Plan } from "../../shared/schemas/plan";
import type { RunAction, RunRecord } from "../../shared/schemas/receipt";
import type { RunResult } from "../../shared/schemas/run";
import { ALL_URL_CHECKS } from "../../shared/url-shape";
import { entryOfKey } from "../adapters/op-spec";
import { ScopeLock } from "../locks/scope-lock";
import { assertItemShapes } from "../policy/check-item-shapes";
import { isPolicyRefusal, type LineRefusal, refusedLines } from "../policy/refused-lines";
import type { StoredReceipt } from "../receipts/receipt-store";
import { applyLines } from "./apply";
import type { Emit, EngineDeps } from "./deps";
import { refuseEmptyPlan, saidNoReceipt } from "./empty-scope";
import { meteredDeps } from "./metered-deps";
import { findOrphans, removeOrphan } from "./orphans";
import { previewLines } from "./preview";
import { ProviderContexts } from "./provider-context";
import { ReceiptSession } from "./receipt-session";
import { removeEntries } from "./remove-entries";
import { type ResolvedLine, refuseTwoLinesOfOneItem, refuseUndefinedVars, resolveLine } from "./resolve-plan";
import { newRunId, type Run } from "./run";
import { startRun } from "./run-context";
import { runLeaseOptions } from "./run-lease";
import { metricsFor, type RunMetrics } from "./run-metrics";
import { type PlanRequest, type ScopeGuard, type ScopeRequest, waitingOf } from "./scope-request";
import { type BodyOutcome, DONE, runUnderScope } from "./under-scope";

export type { PlanRequest, ScopeGuard, ScopeRequest } from "./scope-request";

type RefusedLine = { error: SponsonError; line: string; op: string };

/** A plan's lines after every check that needs no provider: resolved, or refused one by one. */
interface Admitted {
  resolved: ResolvedLine[];
  refused: RefusedLine[];
}

const noEmit: Emit = () => {};
const NO_RECEIPT: BodyOutcome = { kind: "no-receipt" };

export class Engine {
  readonly #deps: EngineDeps;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
  }

  async apply(req: PlanRequest, emit: Emit = noEmit): Promise<RunResult> {
    this.#refuseSecretProvenance(req);
    const metrics = metricsFor(req);
    const { resolved, refused } = metrics.timeSync("authorization", () => this.#admit(req.plan, req));
    if (refused.length > 0) return this.#refusedRun("apply", req, refused, emit, metrics);
    return runUnderScope(this.#deps, {
      action: "apply",
      req,
      emit,
      body: async (ctx) => {
        await applyLines(ctx, resolved, waitingOf(this.#deps, req));
        return DONE;
      },
      planConnections: resolved.map((l) => l.connection),
      metrics,
      ...(req.plan.lines.length === 0 && req.allowEmpty !== true ? { refuse: refuseEmptyPlan } : {}),
      // A line the run never got to (an earlier object failed, or recovery did) says so.
      finish: ({ run }) => {
        run.notReached(resolved.map((l) => ({ id: l.id, op: l.opName, key: l.key, parent: l.parent })));
        run.orderLines(resolved.map((l) => l.id));
      },
    });
  }

  /** Reads providers with the service's credentials, so it passes the same checks as apply. */
  async preview(req: PlanRequest, emit: Emit = noEmit): Promise<RunResult> {
    this.#refuseSecretProvenance(req);
    const metrics = metricsFor(req);
    const { resolved, refused } = metrics.timeSync("authorization", () => this.#admit(req.plan, req));
    if (refused.length > 0) return this.#refusedRun("preview", req, refused, emit, metrics);
    const deps = meteredDeps(this.#deps, metrics);
    const now = deps.clock.now();
    const run = startRun(deps, { id: newRunId(now), action: "preview", req, emit, metrics }, now);
    const session = await ReceiptSession.open(deps.store, req);
    await previewLines(new ProviderContexts(deps), run, session, resolved);
    return run.result(deps.clock.now());
  }

  async destroy(req: ScopeRequest, emit: Emit = noEmit, guard: ScopeGuard | null = null): Promise<RunResult> {
    this.#refuseSecretProvenance(req);
    return runUnderScope(this.#deps, {
      action: "destroy",
      req,
      emit,
      guard,
      body: async (ctx) => {
        const { run, session } = ctx;
        if (saidNoReceipt(run, session)) return NO_RECEIPT;
        const removed = await removeEntries(ctx, session.receipt.ledger, "removed");
        if (removed && session.receipt.ledger.length === 0 && session.receipt.intents.length === 0) {
          run.warn(`receipt ${req.environment}/${req.scope} deleted: the scope owns nothing`);
          return { kind: "delete-receipt" };
        }
        return DONE;
      },
      // Entries the destroy never got to (recovery failed first) say so.
      finish: ({ run, session }) =>
        run.notReached(
          session.receipt.ledger.map((e) => ({ id: e.line, op: e.op, key: e.key, parent: e.parent })),
        ),
    });
  }

  async rollback(req: ScopeRequest & { runId?: string }, emit: Emit = noEmit): Promise<RunResult> {
    this.#refuseSecretProvenance(req);
    return runUnderScope(this.#deps, {
      action: "rollback",
      req,
      emit,
      refuse: (stored) => rollbackTarget(stored, req.runId),
      body: async (ctx, target) => {
        const { run, session } = ctx;
        if (saidNoReceipt(run, session)) return NO_RECEIPT;
        const created = target?.created ?? [];
        const entries = session.receipt.ledger.filter(
          (e) => e.runId === target?.id && created.includes(e.key),
        );
        await removeEntries(ctx, entries, "removed");
        return DONE;
      },
    });
  }

  /** Entries on owned objects that no scope owns and that are not foreign (the sweep's report). */
  async orphans(identity?: string): Promise<OrphanList> {
    return findOrphans(this.#deps, new ProviderContexts(this.#deps), identity);
  }

  /** An admin's removal of one orphan, checked again under the object's lease and recorded. */
  async removeOrphan(req: OrphanRemovalBody & { actor: string }): Promise<OrphanRemoval> {
    return removeOrphan(this.#deps, new ProviderContexts(this.#deps), req);
  }

  /** Resolves intents older than the lease TTL for one scope (the sweep's recovery pass). */
  async recover(req: ScopeRequest, emit: Emit = noEmit): Promise<RunResult> {
    return runUnderScope(this.#deps, { action: "recover", req, emit, body: async () => DONE });
  }

  /**
   * A declared provenance is stored in receipts and shown in lock answers: a value holding a
   * configured secret is refused before anything else (docs/design.md, "Provenance"), naming the
   * field, never the value.
   */
  #refuseSecretProvenance(req: ScopeRequest): void {
    const p = req.provenance;
    if (!p) return;
    for (const [field, value] of Object.entries(p)) {
      if (typeof value === "string" && this.#deps.secrets.containsSecret(value)) {
        throw new SponsonError(
          "VALIDATION",
          `provenance.${field} contains a configured secret; nothing was done`,
          {
            rule: "provenance.secret",
          },
        );
      }
    }
  }

  /**
   * Everything decided without a provider, before any lease and any outbound request: each line's
   * op, connection (configured, of the op's type, allowed in this environment) and params (with
   * the request's vars), then the URL shape check on every item and the write policy on its
   * identity and item. A bad line refuses the request (400/403); a line whose
   * params or identity hold a registered secret is refused on its own (INTERNAL).
   */
  #admit(plan: Plan, req: PlanRequest): Admitted {
    const { environment, scope, defaultBranch, sha, vars } = req;
    refuseUndefinedVars(plan, vars);
    const headBranch = req.provenance?.headBranch ?? undefined;
    const admitted: Admitted = { resolved: [], refused: [] };
    for (const line of plan.lines) {
      try {
        admitted.resolved.push(
          resolveLine(line, this.#deps, { environment, scope, defaultBranch, sha, vars, headBranch }),
        );
      } catch (err) {
        if (err instanceof SponsonError && err.code === "INTERNAL")
          admitted.refused.push({ error: err, line: line.id, op: line.op });
        else throw err;
      }
    }
    const items = admitted.resolved.map((l) => ({ line: l.id, op: l.opName, item: entryOfKey(l.op, l.key) }));
    assertItemShapes(environment, items, this.#deps.urlChecks?.(environment) ?? ALL_URL_CHECKS);
    // Every line is asked, and every refusal answered at once (workers/policy/refused-lines.ts).
    const refusals: LineRefusal[] = [];
    for (const line of admitted.resolved) {
      try {
        this.#deps.policy?.check({
          environment,
          op: line.opName,
          identity: line.parent,
          item: entryOfKey(line.op, line.key),
        });
      } catch (err) {
        if (!isPolicyRefusal(err)) throw err;
        refusals.push({ line: line.id, error: err });
      }
    }
    if (refusals.length > 0) throw refusedLines(refusals);
    refuseTwoLinesOfOneItem(admitted.resolved);
    return admitted;
  }

  /**
   * A plan with a line refused before any provider (a registered secret in its params or lock
   * identity): the run fails without a token exchange, a provider request or a parent lease. An
   * apply is still recorded in the receipt like every other failed run, and the receipt is only
   * written under the scope lease, so the lease is taken just for that one read and write
   * (docs/design.md, "Run algorithm"). Previews are never recorded. The record holds the run's
   * error, whose message names the line and never the value that held the secret.
   */
  async #refusedRun(
    action: RunAction,
    req: ScopeRequest,
    refused: RefusedLine[],
    emit: Emit,
    metrics: RunMetrics,
  ) {
    const now = this.#deps.clock.now();
    const run = startRun(this.#deps, { id: newRunId(now), action, req, emit, metrics }, now);
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
    if (action !== "preview") await this.#recordRefused(run, req);
    return run.result(this.#deps.clock.now());
  }

  /** Records a refused run under a short scope lease; a failure to record is a warning on the run. */
  async #recordRefused(run: Run, req: ScopeRequest): Promise<void> {
    const deps = meteredDeps(this.#deps, run.metrics);
    const state = deps.gate ? await deps.gate.read(req.repository.id, req.scope) : null;
    // A closed scope takes no new receipt writes (an apply to it is refused as SCOPE_CLOSED).
    if (state?.status === "closed") {
      run.warn(`run ${run.id} was not recorded: the scope is closed`);
      return;
    }
    const waiting = waitingOf(this.#deps, req);
    let lease: ScopeLock;
    try {
      lease = await ScopeLock.acquire(
        deps.locks.scope(req.repository.id, req.environment, req.scope),
        run.id,
        runLeaseOptions(deps, waiting, { origin: run.origin, onWaiting: (report) => run.waiting(report) }),
      );
    } catch (err) {
      if (!(err instanceof SponsonError)) throw err;
      run.warn(`run ${run.id} was not recorded: ${err.message}`);
      return;
    }
    let saved: string | null = null;
    try {
      const session = await ReceiptSession.open(deps.store, req);
      // Intents a lock of the version before issue 29 still keeps go into the receipt with this save
      // (nothing resolves them here).
      session.mergeIntents(lease.pendingIntents);
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
}

/**
 * The run a rollback undoes: the given one, else the last apply that created something. None is
 * refused (404) when the scope has a receipt; a scope with no receipt says so under the lease
 * instead (docs/design.md, "A scope with no receipt").
 */
function rollbackTarget({ receipt, etag }: StoredReceipt, runId: string | undefined): RunRecord | undefined {
  const target = runId
    ? receipt.runs.find((r) => r.id === runId)
    : [...receipt.runs].reverse().find((r) => r.action === "apply" && r.created.length > 0);
  if (!target && etag !== null) {
    throw new SponsonError("NOT_FOUND", runId ? `no run ${runId} in this scope` : "no run to roll back");
  }
  return target;
}
