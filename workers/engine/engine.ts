/**
 * The run algorithm (docs/design.md, "Run algorithm") around the scope lease: everything that can be refused
 * is refused before the lease; under it the scope state is read again (docs/design.md, "Staleness recheck")
 * and intents are recovered first; the receipt records the run; the lease is released in `finally`.
 */

import { SponsonError } from "../../shared/errors";
import type { OrphanList, OrphanRemoval, OrphanRemovalBody } from "../../shared/schemas/orphans";
import type { Plan } from "../../shared/schemas/plan";
import type { Intent, LedgerEntry, RunAction, RunRecord } from "../../shared/schemas/receipt";
import type { RunResult } from "../../shared/schemas/run";
import { ALL_URL_CHECKS } from "../../shared/url-shape";
import { entryOfKey } from "../adapters/op-spec";
import { ScopeLock } from "../locks/scope-lock";
import { assertItemShapes } from "../policy/check-item-shapes";
import { isPolicyRefusal, type LineRefusal, refusedLines } from "../policy/refused-lines";
import type { StoredReceipt } from "../receipts/receipt-store";
import { applyLines, rollbackRun } from "./apply";
import { type Emit, type EngineDeps, SimulatedCrash } from "./deps";
import { refuseEmptyPlan, saidNoReceipt } from "./empty-scope";
import { itemOfRecord } from "./item";
import { ItemWriter, type WaitPolicy } from "./item-writer";
import { meteredDeps } from "./metered-deps";
import { findOrphans, removeOrphan } from "./orphans";
import { previewLines } from "./preview";
import { ProviderContexts } from "./provider-context";
import { ReceiptSession } from "./receipt-session";
import { recoverIntents } from "./recover";
import { removeEntries } from "./remove-entries";
import { type ResolvedLine, refuseTwoLinesOfOneItem, refuseUndefinedVars, resolveLine } from "./resolve-plan";
import { newRunId, originOf, Run } from "./run";
import { runLeaseOptions } from "./run-lease";
import { metricsFor, type RunMetrics } from "./run-metrics";
import { type PlanRequest, type ScopeGuard, type ScopeRequest, waitingOf } from "./scope-request";
import { closedBeforeLease, recheckScope } from "./staleness";

export type { PlanRequest, ScopeGuard, ScopeRequest } from "./scope-request";

interface UnderScopeOptions {
  /** Asked of the scope state read under the lease (queued destroys). */
  guard?: ScopeGuard | null;
  /** Connections the plan's admitted lines use, prepared (token exchanges) before the lease. */
  planConnections?: readonly string[];
  /**
   * Refuses the request from the receipt (throws): the one read before the lease, and again the
   * one read under it (it may have changed in between).
   */
  refuse?: (stored: StoredReceipt) => void;
  metrics?: RunMetrics;
  /** Before the run is recorded, whatever happened: gives every line of the request a result. */
  finish?: (run: Run, session: ReceiptSession) => void;
}

type RefusedLine = { error: SponsonError; line: string; op: string };

/** A plan's lines after every check that needs no provider: resolved, or refused one by one. */
interface Admitted {
  resolved: ResolvedLine[];
  refused: RefusedLine[];
}

interface Session {
  /** The engine's deps as this run sees them: recording into its metrics. */
  deps: EngineDeps;
  run: Run;
  session: ReceiptSession;
  writer: ItemWriter;
}

const noEmit: Emit = () => {};

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
    return this.#underScope(
      "apply",
      req,
      emit,
      async ({ deps, run, session, writer }) => {
        await applyLines(deps, run, session, writer, resolved, this.#waiting(req));
      },
      {
        planConnections: resolved.map((l) => l.connection),
        metrics,
        ...(req.plan.lines.length === 0 && req.allowEmpty !== true ? { refuse: refuseEmptyPlan } : {}),
        // A line the run never got to (an earlier object failed, or recovery did) says so.
        finish: (run) => {
          run.notReached(resolved.map((l) => ({ id: l.id, op: l.opName, key: l.key, parent: l.parent })));
          run.orderLines(resolved.map((l) => l.id));
        },
      },
    );
  }

  /** Reads providers with the service's credentials, so it passes the same checks as apply. */
  async preview(req: PlanRequest, emit: Emit = noEmit): Promise<RunResult> {
    this.#refuseSecretProvenance(req);
    const metrics = metricsFor(req);
    const { resolved, refused } = metrics.timeSync("authorization", () => this.#admit(req.plan, req));
    if (refused.length > 0) return this.#refusedRun("preview", req, refused, emit, metrics);
    const deps = meteredDeps(this.#deps, metrics);
    const now = deps.clock.now();
    const run = new Run(newRunId(now), "preview", req, now, emit, metrics, deps.logError);
    const session = await ReceiptSession.open(deps.store, req);
    await previewLines(this.#contexts(deps), run, session, resolved);
    return run.result(deps.clock.now());
  }

  async destroy(req: ScopeRequest, emit: Emit = noEmit, guard: ScopeGuard | null = null): Promise<RunResult> {
    this.#refuseSecretProvenance(req);
    return this.#underScope(
      "destroy",
      req,
      emit,
      async ({ deps, run, session, writer }) => {
        if (saidNoReceipt(run, session)) return "no-receipt";
        const removed = await removeEntries(deps, run, writer, session.receipt.ledger, "removed");
        if (removed && session.receipt.ledger.length === 0 && session.receipt.intents.length === 0) {
          run.warn(`receipt ${req.environment}/${req.scope} deleted: the scope owns nothing`);
          return "delete-receipt";
        }
      },
      {
        guard,
        // Entries the destroy never got to (recovery failed first) say so.
        finish: (run, session) =>
          run.notReached(
            session.receipt.ledger.map((e) => ({ id: e.line, op: e.op, key: e.key, parent: e.parent })),
          ),
      },
    );
  }

  async rollback(req: ScopeRequest & { runId?: string }, emit: Emit = noEmit): Promise<RunResult> {
    this.#refuseSecretProvenance(req);
    let target: RunRecord | undefined;
    return this.#underScope(
      "rollback",
      req,
      emit,
      async ({ deps, run, session, writer }) => {
        if (saidNoReceipt(run, session)) return "no-receipt";
        const created = target?.created ?? [];
        const entries = session.receipt.ledger.filter(
          (e) => e.runId === target?.id && created.includes(e.key),
        );
        await removeEntries(deps, run, writer, entries, "removed");
      },
      {
        // Refused (404) when there is nothing to roll back; a scope with no receipt says so instead.
        refuse: ({ receipt: stored, etag }) => {
          target = req.runId
            ? stored.runs.find((r) => r.id === req.runId)
            : [...stored.runs].reverse().find((r) => r.action === "apply" && r.created.length > 0);
          if (!target && etag !== null) {
            throw new SponsonError(
              "NOT_FOUND",
              req.runId ? `no run ${req.runId} in this scope` : "no run to roll back",
            );
          }
        },
      },
    );
  }

  /** Entries on owned objects that no scope owns and that are not foreign (the sweep's report). */
  async orphans(identity?: string): Promise<OrphanList> {
    return findOrphans(this.#deps, this.#contexts(), identity);
  }

  /** An admin's removal of one orphan, checked again under the object's lease and recorded. */
  async removeOrphan(req: OrphanRemovalBody & { actor: string }): Promise<OrphanRemoval> {
    return removeOrphan(this.#deps, this.#contexts(), req);
  }

  /** Resolves intents older than the lease TTL for one scope (the sweep's recovery pass). */
  async recover(req: ScopeRequest, emit: Emit = noEmit): Promise<RunResult> {
    return this.#underScope("recover", req, emit, async () => {});
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
   * The connections stored records were written through, for their token exchanges before the
   * lease. A record whose connection is gone is skipped here: the line that needs it fails then,
   * with the reason, and nothing is exchanged for it.
   */
  #recordConnections(records: ReadonlyArray<LedgerEntry | Intent>, environment: string): string[] {
    const names: string[] = [];
    for (const record of records) {
      try {
        names.push(itemOfRecord(record, this.#deps.ops, this.#deps.connections, environment).connection);
      } catch (err) {
        if (!(err instanceof SponsonError)) throw err;
      }
    }
    return names;
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
    const run = new Run(newRunId(now), action, req, now, emit, metrics, this.#deps.logError);
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
    const waiting = this.#waiting(req);
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

  #waiting(req: ScopeRequest): WaitPolicy {
    return waitingOf(this.#deps, req);
  }

  #contexts(deps: EngineDeps = this.#deps): ProviderContexts {
    return new ProviderContexts(deps);
  }

  async #underScope(
    action: RunAction,
    req: ScopeRequest,
    emit: Emit,
    // biome-ignore lint/suspicious/noConfusingVoidType: bodies are async functions that usually return nothing.
    body: (s: Session) => Promise<void | "delete-receipt" | "no-receipt">,
    { guard = null, planConnections = [], refuse, metrics = metricsFor(req), finish }: UnderScopeOptions = {},
  ): Promise<RunResult> {
    const deps = meteredDeps(this.#deps, metrics);
    // Authorization-relevant state, read before the lease (docs/design.md, "Staleness recheck"),
    // and the receipt, read at the same time: neither waits for the other.
    const [gate, receipt] = await Promise.allSettled([
      deps.gate ? deps.gate.read(req.repository.id, req.scope) : null,
      deps.store.read(req),
    ]);
    // The gate's answer first: a closed scope is refused as such even when the receipt read failed.
    const before = settledValue(gate);
    const closed = closedBeforeLease(action, req.scope, before);
    if (closed) throw closed;
    const read = settledValue(receipt);
    // Token exchanges for every connection the run may use (the admitted lines', and the ledger's
    // and intents' for removals and recovery) happen now, before any lease: no remote call is
    // ever made while a lease is held.
    const contexts = this.#contexts(deps);
    const stored = read.receipt;
    refuse?.(read);
    const prepared = new Set([
      ...planConnections,
      ...this.#recordConnections([...stored.ledger, ...stored.intents], req.environment),
    ]);
    await contexts.prepare(prepared);
    const runId = newRunId(deps.clock.now());
    const lease = await this.#takeScope(deps, req, { id: runId, emit }, contexts, prepared);
    let run: Run | undefined;
    // The etag of this run's successful last save, handed to the next holder with the release;
    // `settled`: that save (or the receipt's delete, with nothing left) holds every intent.
    let saved: string | null = null;
    let settled = false;
    try {
      // docs/design.md, "Staleness recheck": the state authorization consumed is read again under the lease;
      // any change refuses the run before it writes anything.
      // The receipt (when the read before the lease may be stale) is read at the same time.
      const [gateNow, opened] = await Promise.allSettled([
        deps.gate ? deps.gate.read(req.repository.id, req.scope) : null,
        // One receipt read per run: the read before the lease is the receipt still, when the lock
        // vouches that the last holder saved exactly that version and nobody could have since.
        lease.receiptEtag !== null && lease.receiptEtag === read.etag
          ? ReceiptSession.of(deps.store, req, read)
          : ReceiptSession.open(deps.store, req),
      ]);
      const after = settledValue(gateNow);
      const recheck = recheckScope({ action, scope: req.scope, before, after, guard });
      if (recheck.kind === "refuse") throw recheck.error;
      const session = settledValue(opened);
      // What refused the request before the lease, asked again of the receipt as it is now.
      refuse?.({ receipt: session.receipt, etag: session.etag });
      run = new Run(runId, action, req, deps.clock.now(), emit, metrics, deps.logError);
      // Upgrading (docs/design.md, "Intent recovery"): intents a scope lock of the version before
      // issue 29 kept for a holder that died are recovered like the receipt's own, and this run's
      // saves make what is left durable in the receipt before its release lets the lock drop them.
      session.mergeIntents(lease.pendingIntents);
      // Every save bumps the revision: a higher one at the end means this run has written.
      const openedRevision = session.receipt.revision;
      if (recheck.kind === "skip") {
        run.skip(recheck.reason);
        session.recordRun(run.record(deps.clock.now()));
        await session.save();
        saved = session.etag;
        return run.result(deps.clock.now());
      }
      const writer = new ItemWriter(deps, run, session, lease, contexts);
      // biome-ignore lint/suspicious/noConfusingVoidType: what `body` resolves to, as declared above.
      let outcome: void | "delete-receipt" | "no-receipt" | undefined;
      try {
        await recoverIntents(deps, run, session, writer);
        outcome = await body({ deps, run, session, writer });
      } catch (err) {
        if (err instanceof SimulatedCrash) throw err;
        run.fail(err);
        if (action === "apply") await rollbackRun(deps, run, session, writer).catch((e) => run?.fail(e));
      }
      // Nothing was there and nothing was done: no receipt is written for it.
      if (outcome === "no-receipt") return run.result(deps.clock.now());
      if (outcome !== "delete-receipt") finish?.(run, session);
      try {
        await deps.faults?.("before-save", { line: "", key: "", action, runId, group: [] });
        if (outcome === "delete-receipt") {
          await session.delete();
          settled = true;
        } else {
          session.recordRun(run.record(deps.clock.now()));
          await session.save();
          saved = session.etag;
        }
      } catch (err) {
        // A problem answer (409 CONCURRENT_MODIFICATION above all) means "refused, nothing
        // written". Once this run has saved its receipt (an intent always precedes a provider
        // write), the truth is a failed run with its lines — whatever failed the save, a receipt
        // conflict (the record cannot be added without overwriting whoever changed the receipt)
        // or the store's transport — so the run says so instead.
        if (err instanceof SimulatedCrash || session.receipt.revision === openedRevision) throw err;
        run.fail(err);
        const why = err instanceof SponsonError ? err.message : "the receipt store failed (logged)";
        run.warn(`run ${run.id} was not recorded in the receipt: ${why}`);
      }
      return run.result(deps.clock.now());
    } finally {
      await lease.release(saved, saved !== null || settled);
    }
  }

  /**
   * Takes the scope lease. Upgrading only: intents a scope lock of the version before issue 29
   * still keeps (handed with the grant) may name connections this run did not prepare; their token
   * exchanges must not happen under a lease, so the run gives the lease back (the lock keeps the
   * intents), prepares them and asks again, once per new connection at most. Once no lock keeps
   * any (docs/design.md, "Intent recovery"), the first grant is always the one kept.
   */
  async #takeScope(
    deps: EngineDeps,
    req: ScopeRequest,
    run: { id: string; emit: Emit },
    contexts: ProviderContexts,
    prepared: Set<string>,
  ): Promise<ScopeLock> {
    const waiting = this.#waiting(req);
    for (;;) {
      const lease = await ScopeLock.acquire(
        deps.locks.scope(req.repository.id, req.environment, req.scope),
        run.id,
        runLeaseOptions(deps, waiting, {
          onWaiting: (report) => run.emit({ type: "waiting", waiting: report }),
          origin: originOf(req),
        }),
      );
      const missing = this.#recordConnections(lease.pendingIntents, req.environment).filter(
        (c) => !prepared.has(c),
      );
      if (missing.length === 0) return lease;
      await lease.release();
      for (const name of missing) prepared.add(name);
      await contexts.prepare(missing);
    }
  }
}

/** A settled promise's value, or its rejection thrown. */
function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}
