/**
 * The run algorithm around the scope lease (docs/design.md, "Run algorithm", steps 2 to 9):
 * everything that can be refused is refused before the lease; under it the scope state is read
 * again ("Staleness recheck") and intents are recovered first; the receipt records the run; the
 * lease is released in `finally`.
 */
import { SponsonError } from "../../../shared/errors";
import type { RunAction } from "../../../shared/schemas/receipt";
import type { RunResult } from "../../../shared/schemas/run";
import type { StoredReceipt } from "../../receipts/receipt-store";
import type { Emit, EngineDeps } from "../deps";
import type { ItemRef } from "../plan/item";
import { ProviderContexts } from "../provider-context";
import { noReceiptWarning } from "../rules/empty-scope";
import {
  closedBeforeLease,
  type Recheck,
  recheckScope,
  type ScopeGuard,
  type ScopeSnapshot,
} from "../rules/staleness";
import { SimulatedCrash } from "../simulated-crash";
import { ItemWriter } from "../write/item-writer";
import { rollbackRun } from "./apply";
import { type HeldScope, recordConnections, takeScope } from "./held-scope";
import { meteredDeps } from "./metered-deps";
import { ReceiptSession } from "./receipt-session";
import { recoverIntents } from "./recover";
import { newRunId, Run } from "./run";
import type { RunContext } from "./run-context";
import { metricsFor, type RunMetrics } from "./run-metrics";
import { type RunWaiting, runWaiting, type ScopeRequest } from "./scope-request";

/** How the action's body ended: what is written for the run. */
export type BodyOutcome =
  /** Recorded in the receipt, whatever happened. */
  | { kind: "done" }
  /** Nothing was there and nothing was done: no receipt is written ("A scope with no receipt"). */
  | { kind: "no-receipt" }
  /** The scope owns nothing any more: the receipt is deleted instead of saved. */
  | { kind: "delete-receipt" };

export const DONE: BodyOutcome = { kind: "done" };

/**
 * A destroy's or rollback's body on a scope nothing was ever applied to (docs/design.md, "A scope
 * with no receipt"; rules/empty-scope.ts decides): the run says so, and has nothing to do.
 */
export function saidNoReceipt(run: Run, session: ReceiptSession): boolean {
  const warning = noReceiptWarning(run, session);
  if (warning !== null) run.noReceipt(warning);
  return warning !== null;
}

/** One action run under the scope lease. */
export interface ScopeRun<T> {
  action: RunAction;
  req: ScopeRequest;
  emit: Emit;
  /** The action itself, after recovery; `found` is what `refuse` answered of the receipt under the lease. */
  body: (ctx: RunContext, found: T | undefined) => Promise<BodyOutcome>;
  /** Asked of the scope state read under the lease (queued destroys). */
  guard?: ScopeGuard | null;
  /** Connections the plan's admitted lines use, prepared (token exchanges) before the lease. */
  planConnections?: readonly string[];
  /** Apply: every item of the plan (what a scope's share of a list counts: WriterParts.planned). */
  planned?: readonly ItemRef[];
  /**
   * Refuses the request from the receipt (throws), else answers what the body needs of it: asked
   * of the one read before the lease, and again of the one taken under it (it may have changed).
   */
  refuse?: (stored: StoredReceipt) => T;
  metrics?: RunMetrics;
  /** Before a kept run is recorded, whatever happened: gives every line of the request a result. */
  finish?: (ctx: RunContext) => void;
}

/** What the run knows when it asks for the lease: read and prepared before it. */
interface BeforeLease {
  deps: EngineDeps;
  metrics: RunMetrics;
  before: ScopeSnapshot | null;
  read: StoredReceipt;
  contexts: ProviderContexts;
  runId: string;
  waiting: RunWaiting;
}

export async function runUnderScope<T>(engineDeps: EngineDeps, spec: ScopeRun<T>): Promise<RunResult> {
  const { req } = spec;
  const metrics = spec.metrics ?? metricsFor(req);
  const deps = meteredDeps(engineDeps, metrics);
  // Authorization-relevant state, read before the lease (docs/design.md, "Staleness recheck"),
  // and the receipt, read at the same time: neither waits for the other.
  const [gate, receipt] = await Promise.allSettled([
    deps.gate ? deps.gate.read(req.repository.id, req.scope) : null,
    deps.store.read(req),
  ]);
  // The gate's answer first: a closed scope is refused as such even when the receipt read failed.
  const before = settledValue(gate);
  const closed = closedBeforeLease(spec.action, req.scope, before);
  if (closed) throw closed;
  const read = settledValue(receipt);
  // Token exchanges for every connection the run may use (the admitted lines', and the ledger's
  // and intents' for removals and recovery) happen now, before any lease: no remote call is
  // ever made while a lease is held.
  const contexts = new ProviderContexts(deps);
  spec.refuse?.(read);
  await contexts.prepare([
    ...(spec.planConnections ?? []),
    ...recordConnections(engineDeps, [...read.receipt.ledger, ...read.receipt.intents], req.environment),
  ]);
  const runId = newRunId(deps.clock.now());
  // The run's one wait deadline starts with its first lock: the scope lease's wait, then every
  // parent lease's and every removal's, share it (docs/design.md, "Lease protocol").
  const waiting = runWaiting(deps, req);
  // A wait for a provider's budget is a wait of the run too ("Write budgets").
  contexts.waitUntil(waiting.deadline);
  const lease = await takeScope({ deps, req, runId, emit: spec.emit, waiting });
  try {
    return await underLease(spec, { deps, metrics, before, read, contexts, runId, waiting }, lease);
  } finally {
    await lease.release();
  }
}

async function underLease<T>(spec: ScopeRun<T>, known: BeforeLease, lease: HeldScope): Promise<RunResult> {
  const { action, req, emit } = spec;
  const { deps, read, runId } = known;
  // docs/design.md, "Staleness recheck": the state authorization consumed is read again under the lease;
  // any change refuses the run before it writes anything.
  // The receipt (when the read before the lease may be stale) is read at the same time.
  const [gateNow, opened] = await Promise.allSettled([
    deps.gate ? deps.gate.read(req.repository.id, req.scope) : null,
    // One receipt read per run: the read before the lease is the receipt still, when the lock
    // vouches that the last holder saved exactly that version and nobody could have since.
    lease.lock.receiptEtag !== null && lease.lock.receiptEtag === read.etag
      ? ReceiptSession.of(deps.store, req, read)
      : ReceiptSession.open(deps.store, req),
  ]);
  const after = settledValue(gateNow);
  const recheck: Recheck = recheckScope({
    action,
    scope: req.scope,
    before: known.before,
    after,
    guard: spec.guard ?? null,
  });
  if (recheck.kind === "refuse") throw recheck.error;
  const session = settledValue(opened);
  // What refused the request before the lease, asked again of the receipt as it is now.
  const found = spec.refuse?.({ receipt: session.receipt, etag: session.etag });
  const run = new Run(
    { id: runId, action, req, emit, metrics: known.metrics },
    deps.clock.now(),
    deps.logError,
  );
  // Every save bumps the revision: a higher one at the end means this run has written.
  const openedRevision = session.receipt.revision;
  if (recheck.kind === "skip") {
    run.skip(recheck.reason);
    session.recordRun(run.record(deps.clock.now()));
    await session.save();
    lease.saved(session.etag);
    return run.result(deps.clock.now());
  }
  const writer = new ItemWriter({
    deps,
    run,
    session,
    scopeLease: lease.lock,
    contexts: known.contexts,
    ...(spec.planned ? { planned: spec.planned } : {}),
  });
  const ctx: RunContext = { deps, req, run, session, writer, lease, waiting: known.waiting };
  const outcome = await act(ctx, spec, found);
  if (outcome.kind === "no-receipt") return run.result(deps.clock.now());
  if (outcome.kind === "done") spec.finish?.(ctx);
  await record(ctx, { action, outcome, openedRevision });
  return run.result(deps.clock.now());
}

/** Recovery, then the action; a failure fails the run, and a failed apply removes what it created. */
async function act<T>(ctx: RunContext, spec: ScopeRun<T>, found: T | undefined): Promise<BodyOutcome> {
  try {
    await recoverIntents(ctx);
    return await spec.body(ctx, found);
  } catch (err) {
    if (err instanceof SimulatedCrash) throw err;
    ctx.run.fail(err);
    if (spec.action === "apply") await rollbackRun(ctx).catch((e) => ctx.run.fail(e));
    return DONE;
  }
}

/** Step 9: the run's record saved in the receipt, or the receipt deleted when the scope owns nothing. */
async function record(
  { deps, run, session, lease }: RunContext,
  { action, outcome, openedRevision }: { action: RunAction; outcome: BodyOutcome; openedRevision: number },
): Promise<void> {
  try {
    await deps.faults?.("before-save", { line: "", key: "", action, runId: run.id, group: [] });
    if (outcome.kind === "delete-receipt") {
      await session.delete();
    } else {
      session.recordRun(run.record(deps.clock.now()));
      await session.save();
      lease.saved(session.etag);
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
}

/** A settled promise's value, or its rejection thrown. */
function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}
