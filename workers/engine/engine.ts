/**
 * The engine's public face (docs/design.md, "Run algorithm"): each action admits what it can
 * without I/O (workers/engine/run/admission.ts), then runs under the scope lease
 * (workers/engine/run/under-scope.ts) with its own body.
 */

import { SponsonError } from "../../shared/errors";
import type { AdoptionResult } from "../../shared/schemas/adoption";
import type { OrphanList, OrphanRemoval, OrphanRemovalBody } from "../../shared/schemas/orphans";
import type { RunRecord } from "../../shared/schemas/receipt";
import type { RunResult } from "../../shared/schemas/run";
import type { AdoptionAuditTrail } from "../audit/adoption-audit";
import type { StoredReceipt } from "../receipts/receipt-store";
import { type AdoptionRequest, adopt } from "./adoption/adopt";
import { refusePlanOverQuota } from "./capacity/plan-quota";
import type { Emit, EngineDeps } from "./deps";
import { refuseTooManyObjects } from "./plan/object-limit";
import { ProviderContexts } from "./provider-context";
import { refuseEmptyPlan } from "./rules/empty-scope";
import type { ScopeGuard } from "./rules/staleness";
import { admitPlan, refuseSecretProvenance } from "./run/admission";
import { applyLines } from "./run/apply";
import { meteredDeps } from "./run/metered-deps";
import { findOrphans, removeOrphan } from "./run/orphans";
import { previewLines } from "./run/preview";
import { ReceiptSession } from "./run/receipt-session";
import { refusedRun } from "./run/refused-run";
import { removeEntries } from "./run/remove-entries";
import { newRunId, Run } from "./run/run";
import { metricsFor } from "./run/run-metrics";
import type { PlanRequest, ScopeRequest } from "./run/scope-request";
import { type BodyOutcome, DONE, runUnderScope, saidNoReceipt } from "./run/under-scope";

export type { AdoptionRequest } from "./adoption/adopt";
export type { ScopeGuard } from "./rules/staleness";
export type { PlanRequest, ScopeRequest } from "./run/scope-request";

const noEmit: Emit = () => {};
const NO_RECEIPT: BodyOutcome = { kind: "no-receipt" };

export class Engine {
  readonly #deps: EngineDeps;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
  }

  /** `guard`: a queued platform apply's ordering check under the scope lease ("The platform door"). */
  async apply(req: PlanRequest, emit: Emit = noEmit, guard: ScopeGuard | null = null): Promise<RunResult> {
    refuseSecretProvenance(this.#deps, req);
    const metrics = metricsFor(req);
    const { resolved, refused } = metrics.timeSync("authorization", () => admitPlan(this.#deps, req));
    if (refused.length > 0) return refusedRun(this.#deps, { action: "apply", req, emit, metrics }, refused);
    refuseTooManyObjects(resolved, "apply");
    return runUnderScope(this.#deps, {
      action: "apply",
      req,
      emit,
      guard,
      body: async (ctx) => {
        await applyLines(ctx, resolved);
        return DONE;
      },
      planConnections: resolved.map((l) => l.connection),
      planned: resolved.map((l) => ({ op: l.opName, key: l.key, parent: l.parent })),
      metrics,
      refuse: (stored) => {
        if (req.plan.lines.length === 0 && req.allowEmpty !== true) refuseEmptyPlan(stored);
        // Before any lock and any outbound request (docs/design.md, "A share of each list").
        refusePlanOverQuota(this.#deps, resolved, stored, req);
      },
      // A line the run never got to (an earlier object failed, or recovery did) says so, with what
      // it planned: an item the ledger holds and that was not found gone is kept, never created.
      finish: ({ run, session }) => {
        const gone = new Set(run.drift.map((d) => d.line));
        run.notReached(
          resolved.map((l) => {
            const ref = { op: l.opName, key: l.key, parent: l.parent };
            const kept = session.ledgerEntry(ref) !== undefined && !gone.has(l.id);
            return { id: l.id, ...ref, planned: kept ? "keep" : "create" };
          }),
        );
        run.orderLines(resolved.map((l) => l.id));
      },
    });
  }

  /** Reads providers with the service's credentials, so it passes the same checks as apply. */
  async preview(req: PlanRequest, emit: Emit = noEmit): Promise<RunResult> {
    refuseSecretProvenance(this.#deps, req);
    const metrics = metricsFor(req);
    const { resolved, refused } = metrics.timeSync("authorization", () => admitPlan(this.#deps, req));
    if (refused.length > 0) return refusedRun(this.#deps, { action: "preview", req, emit, metrics }, refused);
    refuseTooManyObjects(resolved, "preview");
    const deps = meteredDeps(this.#deps, metrics);
    const now = deps.clock.now();
    const run = new Run({ id: newRunId(now), action: "preview", req, emit, metrics }, now, deps.logError);
    const session = await ReceiptSession.open(deps.store, req);
    // What apply would refuse from the plan, preview refuses too.
    refusePlanOverQuota(deps, resolved, session, req);
    // Who owns the entries it finds, so another repository's are never told (previewLines).
    const ownership =
      deps.controls.ownership && deps.controls.parentLocks
        ? async (parent: string) => (await (await deps.locks.parent(parent)).ownership({})).items
        : undefined;
    await previewLines(new ProviderContexts(deps), run, session, resolved, ownership);
    return run.result(deps.clock.now());
  }

  async destroy(req: ScopeRequest, emit: Emit = noEmit, guard: ScopeGuard | null = null): Promise<RunResult> {
    refuseSecretProvenance(this.#deps, req);
    return runUnderScope(this.#deps, {
      action: "destroy",
      req,
      emit,
      guard,
      body: async (ctx) => {
        const { run, session } = ctx;
        if (saidNoReceipt(run, session)) return NO_RECEIPT;
        const removed = await removeEntries(ctx, session.receipt.ledger, "removed");
        // Everything removed is what a destroy is for: the receipt goes with no warning (a warning
        // here read as trouble in every pull request's close).
        if (removed && session.receipt.ledger.length === 0 && session.receipt.intents.length === 0)
          return { kind: "delete-receipt" };
        return DONE;
      },
      // Entries the destroy never got to (recovery failed first) say so.
      finish: ({ run, session }) =>
        run.notReached(
          session.receipt.ledger.map((e) => ({
            id: e.line,
            op: e.op,
            key: e.key,
            parent: e.parent,
            planned: "remove" as const,
          })),
        ),
    });
  }

  async rollback(req: ScopeRequest & { runId?: string }, emit: Emit = noEmit): Promise<RunResult> {
    refuseSecretProvenance(this.#deps, req);
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

  /**
   * An admin's adoption of the entries already on one list (docs/design.md, "Adopting existing
   * entries"): a dry run answers the table; an apply is recorded in `audit` before it acts.
   */
  async adopt(req: AdoptionRequest, audit: AdoptionAuditTrail | null = null): Promise<AdoptionResult> {
    return adopt(this.#deps, req, audit);
  }

  /** Resolves intents older than the lease TTL for one scope (the sweep's recovery pass). */
  async recover(req: ScopeRequest, emit: Emit = noEmit): Promise<RunResult> {
    return runUnderScope(this.#deps, { action: "recover", req, emit, body: async () => DONE });
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
