/**
 * `POST /v1/adopt` (docs/design.md, "Adopting existing entries"): the entries already on one list
 * of one object, each matched to the pull request whose scope would have written it. A dry run
 * reads and answers the table; an apply records its intent in the audit trail first, then adopts
 * scope by scope (scope-adoption.ts), each entry decided again under the leases, and completes the
 * record with what it did. Every check of the request itself comes before anything is sent.
 */
import { isSponsonError } from "../../../shared/errors";
import {
  ADOPTION_OUTCOMES,
  type AdoptionEntry,
  type AdoptionOutcome,
  type AdoptionResult,
} from "../../../shared/schemas/adoption";
import { entryOfKey } from "../../adapters/op-spec";
import type { AdoptionAudit, AdoptionAuditTrail } from "../../audit/adoption-audit";
import { outcomeOfError } from "../../audit/audit-intent";
import { GitHubPulls } from "../../github/pull-requests";
import type { EngineDeps } from "../deps";
import { ProviderContexts } from "../provider-context";
import { errorInfo, newRunId } from "../run/run";
import { rethrowCrash } from "../simulated-crash";
import { type AdmittedAdoption, type AdoptionRequest, admitAdoption, paramsOfKey } from "./admission";
import { decideEntry, type EntryDecision } from "./decide";
import { type AdoptionRun, adoptIntoScope, type ScopeOutcome, type ScopeWork } from "./scope-adoption";
import { surveyList } from "./survey";

export type { AdoptionRequest } from "./admission";

export async function adopt(
  deps: EngineDeps,
  req: AdoptionRequest,
  audit: AdoptionAuditTrail | null,
): Promise<AdoptionResult> {
  const a = admitAdoption(deps, req);
  const startedAt = deps.clock.now();
  const runId = newRunId(startedAt);
  // Registered as a secret here, before anything is sent: no message can carry it from now on.
  const github = req.github
    ? new GitHubPulls({
        token: req.github.token,
        repository: req.repository,
        fetch: deps.fetch,
        clock: deps.clock,
        secrets: deps.secrets,
      })
    : null;
  const record: AdoptionAudit = {
    runId,
    actor: req.actor,
    repository: { id: req.repository.id, name: req.repository.name },
    environment: req.environment,
    connection: req.connection,
    op: req.op,
    parent: a.parent,
    patterns: a.patterns.map((p) => p.source),
    removeClosed: req.removeClosed,
    at: startedAt,
    id: runId,
    startedAt,
    status: "started",
  };
  // docs/design.md, "Audit before acting": the intent before any token exchange or read.
  if (req.apply) await audit?.started(record);
  try {
    const contexts = new ProviderContexts(deps);
    await contexts.prepare([req.connection]);
    const { keys, survey } = await surveyList(deps, contexts, a, github);
    const decisions = keys.map((key) =>
      decideEntry(
        key,
        { item: entryOfKey(a.op, key), patterns: a.patterns, removeClosed: req.removeClosed },
        survey,
      ),
    );
    const run: AdoptionRun = { deps, contexts, a, runId, inDoubt: new Set(), warnings: [] };
    const applied = req.apply
      ? await applyDecisions(run, decisions)
      : { entries: decisions.map((d) => d.entry), unknown: false };
    const { entries, unknown } = applied;
    const result = resultOf(a, runId, entries, [...warningsOf(req), ...run.warnings]);
    if (req.apply) {
      const changed = entries.filter((e) => e.outcome !== "kept");
      await audit?.finished({
        ...record,
        at: deps.clock.now(),
        status: unknown ? "unknown" : "done",
        entries: changed.map((e) => ({
          key: e.key,
          scope: e.scope,
          outcome: e.outcome,
          ...(e.error ? { errorCode: e.error.code } : {}),
        })),
      });
    }
    return result;
  } catch (err) {
    if (req.apply) await audit?.finished({ ...record, ...outcomeOfError(err), at: deps.clock.now() });
    throw err;
  }
}

/** Scope by scope, in pull request order; one scope's failure fails its entries, not the others. */
async function applyDecisions(
  r: AdoptionRun,
  decisions: EntryDecision[],
): Promise<{ entries: AdoptionEntry[]; unknown: boolean }> {
  const works = new Map<string, ScopeWork>();
  for (const { entry, action } of decisions) {
    if (action === "keep" || entry.scope === null || entry.pullRequest === null) continue;
    const params = paramsOfKey(r.a.op, r.a.req.params, entry.key);
    if (params === null) continue;
    const work = works.get(entry.scope) ?? {
      scope: entry.scope,
      pullRequest: entry.pullRequest.number,
      entries: [],
    };
    work.entries.push({ key: entry.key, params, action });
    works.set(entry.scope, work);
  }
  const done = new Map<string, ScopeOutcome>();
  for (const work of [...works.values()].sort((x, y) => x.pullRequest - y.pullRequest)) {
    try {
      for (const [key, outcome] of await adoptIntoScope(r, work)) done.set(key, outcome);
    } catch (err) {
      rethrowCrash(err);
      const { code, message } = errorInfo(err, {
        runId: r.runId,
        ...(r.deps.logError ? { log: r.deps.logError } : {}),
      });
      const unknown = outcomeOfError(err).status === "unknown";
      for (const e of work.entries)
        done.set(e.key, { outcome: "failed", error: { code, message }, ...(unknown ? { unknown } : {}) });
      r.deps.warn?.(`adopt: scope ${work.scope} failed: ${isSponsonError(err) ? err.message : code}`);
    }
  }
  const entries = decisions.map(({ entry, action }): AdoptionEntry => {
    if (action === "keep") return entry;
    const found = done.get(entry.key);
    if (!found) return { ...entry, outcome: "kept", reason: "policy", rule: "op.params" };
    const { reason: _reason, ...rest } = entry;
    const { unknown: _unknown, ...outcome } = found;
    return { ...rest, ...outcome };
  });
  return { entries, unknown: [...done.values()].some((o) => o.unknown === true) };
}

/**
 * Without a token every pull request is taken as open. A close the service handles destroys the
 * scope; a pull request closed before that (before the service existed) never gets that destroy,
 * so what is adopted into its scope stays until someone removes it: the answer says so, and how.
 */
function warningsOf(req: AdoptionRequest): string[] {
  if (req.github) return [];
  return [
    "no GitHub token: pull requests were not asked about, so every matched entry is taken as an open pull request's. The service destroys a scope when its pull request's close reaches it; a pull request closed before that (before the service existed, say) is never destroyed by itself, so what is adopted into its scope stays until `sponson destroy` of that scope, or an adoption with a GitHub token and --remove-closed, removes it",
  ];
}

function resultOf(
  a: AdmittedAdoption,
  runId: string,
  entries: AdoptionEntry[],
  warnings: string[],
): AdoptionResult {
  const counts = Object.fromEntries(ADOPTION_OUTCOMES.map((o) => [o, 0])) as Record<AdoptionOutcome, number>;
  for (const e of entries) counts[e.outcome] += 1;
  return {
    runId,
    dryRun: !a.req.apply,
    repository: { id: a.req.repository.id, name: a.req.repository.name },
    environment: a.req.environment,
    connection: a.req.connection,
    op: a.op.name,
    parent: a.parent,
    entries,
    counts,
    warnings,
  };
}
