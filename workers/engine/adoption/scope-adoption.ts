/**
 * One scope's adoptions (docs/design.md, "Adopting existing entries"), in the write path's order
 * and under its leases: the scope lease (waited for, with no other lease held), its receipt's
 * leftover intents recovered first as every run does; then an intent per entry made durable in the
 * receipt (marked `adopts`: recovery keeps the entry, never removes it); then, under the object's
 * parent lease, the entry read again with its ownership, decided (decide.ts) and the ownership
 * changed with the lease's token after a round trip to the scope lease; then the receipt's ledger
 * entry, with the intent dropped. A closed pull request's entry is then removed through the
 * scope's own removal path (remove-entries.ts: its last owner removes it).
 */
import { factsOf, SponsonError } from "../../../shared/errors";
import type { AdoptionEntry } from "../../../shared/schemas/adoption";
import { type ItemOwnership, ownerOf } from "../../../shared/schemas/ownership";
import { type Provenance, provenanceSchema, unknownProvenance } from "../../../shared/schemas/provenance";
import type { Intent } from "../../../shared/schemas/receipt";
import type { Params } from "../../adapters/op-spec";
import type { ParentLease } from "../../locks/parent-lock";
import type { EngineDeps } from "../deps";
import { ownershipOf } from "../lease/owner-bookkeeping";
import { withParent } from "../lease/parent-lease";
import { type Item, recordOf, refOf } from "../plan/item";
import type { ProviderContexts } from "../provider-context";
import { recordConnections, takeScope } from "../run/held-scope";
import { ReceiptSession } from "../run/receipt-session";
import { recoverIntents } from "../run/recover";
import { removeEntries } from "../run/remove-entries";
import { Run } from "../run/run";
import type { RunContext } from "../run/run-context";
import { metricsFor } from "../run/run-metrics";
import { runWaiting, type ScopeRequest } from "../run/scope-request";
import { SimulatedCrash } from "../simulated-crash";
import { Fence } from "../write/fence";
import { ItemWriter } from "../write/item-writer";
import { readUnderLease } from "../write/recent-writes-section";
import type { AdmittedAdoption } from "./admission";
import { type Adoption, decideAdoption, type EntryAction } from "./decide";

/** The ledger's label for an adopted entry until a plan line names it (labels are not identity). */
export const ADOPTED_LINE = "adopted";

export interface AdoptionRun {
  deps: EngineDeps;
  contexts: ProviderContexts;
  a: AdmittedAdoption;
  /** The holder of every lease the adoption takes; the ledger entries it adds name it. */
  runId: string;
  /**
   * The objects where a write of the adoption has an unknown outcome (WriterParts.inDoubt), shared
   * by every scope: they all ask with the one holder, so a later scope asking there would be
   * handed the lease the write abandoned (docs/design.md, "Fencing around a write").
   */
  inDoubt: Set<string>;
  /** What each scope's run warned (a recovery, a lock's lost answer), named by scope: the answer's. */
  warnings: string[];
}

export interface ScopeWork {
  scope: string;
  pullRequest: number;
  entries: Array<{ key: string; params: Params; action: Exclude<EntryAction, "keep"> }>;
}

export type ScopeOutcome = Pick<AdoptionEntry, "outcome" | "reason" | "error"> & {
  /** The failure may have written (an unknown outcome): the audit record says so. */
  unknown?: true;
};

const noEmit = () => {};

/** The leases' origin (docs/design.md, "Lock answers"): who adopts, for which pull request. */
function provenanceOf(a: AdmittedAdoption, pullRequest: number): Provenance {
  const p = {
    ...unknownProvenance(true),
    repository: a.req.repository.name,
    actor: a.req.actor,
    pullRequest,
  };
  return provenanceSchema.safeParse(p).success ? p : { ...p, actor: null };
}

export async function adoptIntoScope(r: AdoptionRun, whole: ScopeWork): Promise<Map<string, ScopeOutcome>> {
  const { deps, contexts, a, runId, inDoubt } = r;
  // A scope the service knows closed is never adopted into: its close was handled (or is queued),
  // so no destroy would ever remove what it adopted (docs/design.md, "Adopting existing entries").
  // A closed pull request's entry adopted only to be removed at once stays allowed.
  const closedOut = new Map<string, ScopeOutcome>();
  const isClosed = async () =>
    deps.gate ? (await deps.gate.read(a.req.repository.id, whole.scope)).status === "closed" : false;
  const open = (work: ScopeWork, closed: boolean): ScopeWork => {
    if (!closed) return work;
    for (const e of work.entries)
      if (e.action === "adopt") closedOut.set(e.key, { outcome: "kept", reason: "scope-closed" });
    return { ...work, entries: work.entries.filter((e) => e.action !== "adopt") };
  };
  let work = open(whole, await isClosed());
  if (work.entries.length === 0) return closedOut;
  const { repository, environment } = a.req;
  const req: ScopeRequest = {
    repository,
    environment,
    scope: work.scope,
    wait: true,
    waitTimeoutMs: a.waitTimeoutMs,
    provenance: provenanceOf(a, work.pullRequest),
  };
  // Token exchanges before the lease: the list's connection, and whatever recovery may need.
  const before = await deps.store.read(req);
  await contexts.prepare([
    a.req.connection,
    ...recordConnections(deps, [...before.receipt.ledger, ...before.receipt.intents], environment),
  ]);
  // One wait deadline per scope adopted, as for a run (docs/design.md, "Lease protocol").
  const waiting = runWaiting(deps, req);
  const held = await takeScope({ deps, req, runId, emit: noEmit, waiting });
  try {
    const vouched = held.lock.receiptEtag !== null && held.lock.receiptEtag === before.etag;
    const session = vouched
      ? ReceiptSession.of(deps.store, req, before)
      : await ReceiptSession.open(deps.store, req);
    const revision = session.receipt.revision;
    // The bookkeeping every run's helpers share (recovery, removals, lease origins); never recorded
    // in the receipt's runs: the ledger entries name the adoption, the audit trail records it.
    const run = new Run(
      { id: runId, action: "recover", req, emit: noEmit, metrics: metricsFor(req) },
      deps.clock.now(),
      deps.logError,
    );
    const writer = new ItemWriter({ deps, run, session, scopeLease: held.lock, contexts, inDoubt });
    const ctx: RunContext = { deps, req, run, session, writer, lease: held, waiting };
    try {
      // Asked again under the scope lease: a close that came in while this waited for it counts.
      work = open(work, await isClosed());
      await recoverIntents(ctx);
      const out = new Map([...closedOut, ...(await adoptAndRemove(ctx, r, work))]);
      if (session.receipt.revision !== revision) held.saved(session.etag);
      return out;
    } finally {
      r.warnings.push(...run.warnings.map((w) => `${work.scope}: ${w}`));
    }
  } finally {
    await held.release();
  }
}

async function adoptAndRemove(
  ctx: RunContext,
  r: AdoptionRun,
  work: ScopeWork,
): Promise<Map<string, ScopeOutcome>> {
  const { a } = r;
  const { run, session } = ctx;
  const out = new Map<string, ScopeOutcome>();
  const itemOf = (key: string, params: Params): Item => ({
    line: ADOPTED_LINE,
    opName: a.op.name,
    op: a.op,
    connection: a.req.connection,
    params,
    key,
    parent: a.parent,
  });
  const toAdopt = work.entries.filter((e) => e.action !== "remove").map((e) => itemOf(e.key, e.params));
  const decided = toAdopt.length > 0 ? await adoptItems(ctx, r, toAdopt) : new Map<string, Adoption>();
  for (const [key, d] of decided) {
    if (d.kind === "taken") out.set(key, { outcome: "kept", reason: "owned-by-another-scope" });
    else if (d.kind === "absent") out.set(key, { outcome: "kept", reason: "absent" });
    else out.set(key, { outcome: "adopted" });
  }
  // A closed pull request's entries go the way its close takes them: the scope's removal, whose
  // last owner takes the entry off the provider (under the object's lease, fenced, intents first).
  const removals = work.entries
    .filter(
      (e) => e.action === "remove" || (e.action === "adopt-remove" && decided.get(e.key)?.kind === "adopt"),
    )
    .flatMap((e) => session.ledgerEntry({ op: a.op.name, key: e.key, parent: a.parent }) ?? []);
  if (removals.length > 0) {
    await removeEntries(ctx, removals, "removed");
    for (const entry of removals) {
      const line = run.lines.find((l) => l.key === entry.key && l.op === entry.op);
      if (line?.result === "removed" || line?.result === "released")
        out.set(entry.key, { outcome: line.result });
      else
        out.set(entry.key, {
          outcome: "failed",
          error: line?.error
            ? { code: line.error.code, message: line.error.message }
            : { code: "INTERNAL", message: "the removal gave no result" },
          ...(factsOf(line?.error).outcome === "unknown" ? { unknown: true as const } : {}),
        });
    }
    await session.save();
  }
  return out;
}

/** The three steps for the scope's entries to adopt; answers what each came to under the lease. */
async function adoptItems(ctx: RunContext, r: AdoptionRun, items: Item[]): Promise<Map<string, Adoption>> {
  const { deps, run, session } = ctx;
  const at = deps.clock.now();
  const intents: Intent[] = items.map((item) => ({
    action: "create",
    ...recordOf(item, run.id),
    at,
    // Claimed at the lock before anything is recorded: the upgrade's rebuild never counts it.
    claims: true,
    adopts: true,
  }));
  for (const intent of intents) session.addIntent(intent);
  await session.save();
  await fault(deps, "after-intent", run.id, items);
  let touched = false;
  let decided: Map<string, Adoption>;
  try {
    decided = await underParent(ctx, r, items, () => {
      touched = true;
    });
  } catch (err) {
    // Nothing changed at the lock: the intents go, as for a group whose lease was never had. After
    // an ownership change they stay: the scope's next run (or the sweep) resolves them.
    if (!(err instanceof SimulatedCrash) && !touched) {
      for (const intent of intents) session.dropIntent(intent);
      await session.save().catch(() => {});
    }
    throw err;
  }
  for (const item of items) {
    session.resolveIntents(run.id, refOf(item));
    if (decided.get(item.key)?.kind !== "adopt") continue;
    const existing = session.ledgerEntry(refOf(item));
    session.addLedger({
      ...existing,
      ...recordOf(item, run.id),
      line: existing?.line ?? ADOPTED_LINE,
      // Owned by this scope alone and not foreign: what the scope's own create would have left.
      holding: "created",
      createdAt: existing?.createdAt ?? at,
      adopted: { at, by: r.a.req.actor },
    });
  }
  await session.save();
  return decided;
}

/** Under the object's parent lease: read it, read and decide each item's ownership, change it. */
async function underParent(
  ctx: RunContext,
  r: AdoptionRun,
  items: Item[],
  touching: () => void,
): Promise<Map<string, Adoption>> {
  const { deps, run, session, lease: held } = ctx;
  const { a, contexts } = r;
  const w = { deps, run, session, scopeLease: held.lock, contexts, inDoubt: r.inDoubt };
  const first = items[0] as Item;
  return withParent(w, { first, waiting: ctx.waiting, items }, async (lease: ParentLease | null) => {
    if (lease === null || !deps.controls.ownership)
      throw new SponsonError("INTERNAL", "adoption changes ownership: it needs the object's parent lock");
    // No provider write here: the fence bounds the reads by the leases' deadline and hands the
    // first ownership read the grant's view.
    const fence = new Fence({ scope: held.lock, parent: lease, checkAfter: false, what: a.parent });
    const c = fence.context(contexts.get(a.req.connection));
    const { batch } = a.op;
    const state = batch ? await readUnderLease(deps, { batch, ctx: c, params: a.listParams, lease }) : null;
    const present = new Set(batch ? batch.keys(state, a.listParams) : await a.op.list(c, a.listParams));
    const owns = await ownershipOf(w, { items, lease, fence, ctx: c, state });
    if (owns === null) throw new SponsonError("INTERNAL", "adoption: the object's ownership was not read");
    const me = ownerOf(run);
    const decided = new Map(
      items.map((item, i) => [item.key, decideAdoption(owns[i] as ItemOwnership, present.has(item.key), me)]),
    );
    const changes = [...decided.values()].flatMap((d) => (d.kind === "adopt" ? d.changes : []));
    if (changes.length > 0) {
      // An ownership change: only while the scope is still ours (a round trip, not the deadline).
      await held.lock.check();
      touching();
      await lease.changeOwners(changes);
    }
    await fault(deps, "after-owners", run.id, items);
    return decided;
  });
}

async function fault(deps: EngineDeps, point: "after-intent" | "after-owners", runId: string, items: Item[]) {
  if (!deps.faults) return;
  const group = items.map((i) => ({ line: i.line, key: i.key, action: "adopt" }));
  for (const item of items)
    await deps.faults(point, {
      line: item.line,
      key: item.key,
      parent: item.parent,
      action: "adopt",
      runId,
      group,
    });
}
