/**
 * What the dashboard shows, read fresh for every render: held locks from their own objects (via
 * the R2 index, like GET /v1/locks), and the newest scopes' receipts for ledgers and recent runs.
 * Only display fields are kept: provider blocks and params never reach a page.
 */
import type { Env } from "../../shared/env";
import { holdingText } from "../../shared/holding-text";
import { parseLockKey } from "../../shared/lock-keys";
import type { HoldView } from "../../shared/schemas/hold";
import type { LockView as LockAnswer, LockState } from "../../shared/schemas/lock";
import type { Provenance, RunHolder } from "../../shared/schemas/provenance";
import type { Receipt, ReceiptView, RunRecord } from "../../shared/schemas/receipt";
import { type RepositoryRef, repositoryRefById } from "../../shared/schemas/repository";
import type { RunCounts, RunTimings } from "../../shared/schemas/run-metrics";
import { configFromEnv } from "../config/config";
import { listHeldLocks } from "../lock-views/held-locks";
import { ledgerView, type OwnershipReads } from "../lock-views/ledger-view";
import { heldLocksFor } from "../lock-views/visible-locks";
import { configuredReceiptStore } from "../receipts/configured-store";
import { objectHash } from "./object-hash";
import { readScopeStates, type ScopeStateShown, scopeStateKey } from "./scope-states";
import { inView, SCOPES_PER_PAGE, type ViewFilter } from "./view-filter";

/** Each row's parent object page, one hash per parent per render. */
async function withParentHashes(
  rows: LedgerRow[],
  hashes: Map<string, Promise<string>>,
): Promise<LedgerRow[]> {
  return Promise.all(
    rows.map(async (row) => {
      if (row.parent === null) return row;
      let hash = hashes.get(row.parent);
      if (!hash) {
        hash = objectHash(row.parent);
        hashes.set(row.parent, hash);
      }
      return { ...row, parentHash: await hash };
    }),
  );
}

/** Receipts read per render: one page of the most recently written scopes. */
export const SCOPES_SHOWN = SCOPES_PER_PAGE;
export const RUNS_SHOWN = 25;

export interface LedgerRow {
  line: string;
  op: string;
  key: string;
  parent: string | null;
  runId: string;
  createdAt: number;
  /** created / shared with N others / foreign (read live from the parent's lock). */
  holding: string;
  /** The parent's lock key hash, for its object page (/dashboard/objects/<hash>). */
  parentHash?: string;
}

export interface ScopeView {
  /** The repository the scope belongs to (name from configuration; `#<id>` when no longer configured). */
  repository: RepositoryRef;
  environment: string;
  scope: string;
  updatedAt: number;
  ledger: LedgerRow[];
  /** Open or closed, shared by every environment of the scope (workers/dashboard/scope-states.ts). */
  state?: ScopeStateShown;
  /** Set when the receipt could not be read; the rest of the page still renders. */
  problem?: string;
}

export interface RunView {
  id: string;
  repository?: RepositoryRef;
  environment: string;
  scope: string;
  action: RunRecord["action"];
  status: RunRecord["status"];
  startedAt: number;
  finishedAt: number;
  error?: { code: string; message: string };
  /** Where the run's time went and its calls (runs recorded before these existed have none). */
  timings?: RunTimings;
  counts?: RunCounts;
  /** Runs whose writes carried some of this run's changes (write combining). */
  combinedBy?: string[];
  /** Where the run came from (docs/design.md, "Provenance"); runs recorded before it have none. */
  provenance?: Provenance;
}

export interface LockView {
  key: string;
  kind: LockState["kind"];
  /** A scope lock's repository, from its key. */
  repository: RepositoryRef | null;
  identity: string | null;
  /** The lease's holder, since and expiry; null for a lock on hold that nobody holds. */
  holder: string | null;
  /** Who the holding run is (null: a lease taken before provenance was kept, or none). */
  heldBy: RunHolder | null;
  since: number | null;
  expiresAt: number | null;
  /** An admin's hold in force (docs/design.md, "Lease protocol: holds"). */
  hold: HoldView | null;
  waiters: { holder: string; since: number; by: RunHolder | null }[];
}

export interface Snapshot {
  now: number;
  locks: LockView[];
  scopes: ScopeView[];
  runs: RunView[];
  /** Scopes on this view, every page. */
  totalScopes: number;
  /** The view: its filter and page (workers/dashboard/view-filter.ts). */
  filter: ViewFilter;
  pages: number;
}

/** Everything, page 1: what a caller bound to no repository sees without a query. */
export const UNFILTERED: ViewFilter = {
  repository: null,
  environment: null,
  scope: null,
  page: 1,
  bound: false,
};

export function lockView(state: LockAnswer, repositories: readonly RepositoryRef[] = []): LockView | null {
  const leased = state.held && state.holder !== null && state.since !== null && state.expiresAt !== null;
  if (!leased && state.hold === undefined) return null;
  const parsed = parseLockKey(state.key);
  return {
    key: state.key,
    kind: state.kind,
    repository: parsed?.kind === "scope" ? repositoryRefById(parsed.repositoryId, repositories) : null,
    identity: state.identity,
    holder: leased ? state.holder : null,
    heldBy: leased ? (state.heldBy ?? null) : null,
    since: leased ? state.since : null,
    expiresAt: leased ? state.expiresAt : null,
    hold: state.hold ?? null,
    waiters: state.waiters.map((w) => ({ holder: w.holder, since: w.since, by: w.by ?? null })),
  };
}

export function ledgerRows(receipt: ReceiptView): LedgerRow[] {
  return receipt.ledger.map((e) => ({
    line: e.line,
    op: e.op,
    key: e.key,
    parent: e.parent,
    runId: e.runId,
    createdAt: e.createdAt,
    holding: holdingText(e),
  }));
}

/** Newest first across scopes; at most `limit`. Pure. */
export function recentRuns(receipts: readonly Receipt[], limit = RUNS_SHOWN): RunView[] {
  const runs: RunView[] = [];
  for (const r of receipts) {
    for (const run of r.runs) {
      runs.push({
        id: run.id,
        ...(r.repository ? { repository: r.repository } : {}),
        environment: r.environment,
        scope: r.scope,
        action: run.action,
        status: run.status,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        ...(run.error ? { error: { code: run.error.code, message: run.error.message } } : {}),
        ...(run.timings ? { timings: run.timings } : {}),
        ...(run.counts ? { counts: run.counts } : {}),
        ...(run.combinedBy?.length ? { combinedBy: run.combinedBy } : {}),
        ...(run.provenance ? { provenance: run.provenance } : {}),
      });
    }
  }
  return runs.sort((a, b) => b.finishedAt - a.finishedAt || a.id.localeCompare(b.id)).slice(0, limit);
}

/**
 * A lock on this view: scope locks of its repository. A bound caller's parent locks were already
 * narrowed to the ones its repository's runs hold or wait on (`heldLocksFor`).
 */
function lockInView(lock: LockView, filter: ViewFilter): boolean {
  if (lock.repository === null) return true;
  return filter.repository === null || lock.repository.id === filter.repository.id;
}

export async function loadSnapshot(
  env: Env,
  now: () => number = Date.now,
  filter: ViewFilter = UNFILTERED,
): Promise<Snapshot> {
  const store = configuredReceiptStore(env);
  const repositories = configFromEnv(env).repositories;
  const [allHeld, all] = await Promise.all([listHeldLocks(env), store.listScopes()]);
  // A repository-bound caller (docs/security.md, "Repository isolation"): only its repository's
  // scope locks, and of shared parent locks only its own runs.
  const held =
    filter.bound && filter.repository ? await heldLocksFor(env, allHeld, filter.repository.id) : allHeld;
  const summaries = all.filter((s) => inView(filter, s));
  const pages = Math.max(1, Math.ceil(summaries.length / SCOPES_SHOWN));
  const first = (Math.min(filter.page, pages) - 1) * SCOPES_SHOWN;
  const newest = summaries.sort((a, b) => b.uploadedAt - a.uploadedAt).slice(first, first + SCOPES_SHOWN);
  const receipts: Receipt[] = [];
  // Scopes on one page mostly share their parents: each parent's lock is read once.
  const ownershipReads: OwnershipReads = new Map();
  const hashes = new Map<string, Promise<string>>();
  const scopes = await Promise.all(
    newest.map(async (s): Promise<ScopeView> => {
      const repository = repositoryRefById(s.repositoryId, repositories);
      const base = { repository, environment: s.environment, scope: s.scope, updatedAt: s.uploadedAt };
      try {
        const { receipt } = await store.read(base);
        receipts.push(receipt);
        const rows = ledgerRows(await ledgerView(env, repository, receipt, ownershipReads));
        return { ...base, ledger: await withParentHashes(rows, hashes) };
      } catch (err) {
        // One unreadable receipt must not hide every other scope; the message names no secret.
        console.warn(
          `dashboard: receipt ${repository.name}:${s.environment}/${s.scope} unreadable: ${String(err)}`,
        );
        return { ...base, ledger: [], problem: "this scope's receipt could not be read" };
      }
    }),
  );
  const states = await readScopeStates(
    env,
    scopes.map((s) => ({ repositoryId: s.repository.id, scope: s.scope })),
  );
  return {
    now: now(),
    locks: held
      .map((l) => lockView(l, repositories))
      .filter((l): l is LockView => l !== null && lockInView(l, filter)),
    scopes: scopes.map((s) => ({ ...s, state: states.get(scopeStateKey(s.repository.id, s.scope)) ?? null })),
    runs: recentRuns(receipts),
    totalScopes: summaries.length,
    filter,
    pages,
  };
}
