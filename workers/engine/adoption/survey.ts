/**
 * The adoption's reads before any lease (docs/design.md, "Adopting existing entries"): the list as
 * the provider shows it (merged with the lock's recent writes, as every read before a lease is),
 * the ownership its lock keeps (read without a lease, which writes nothing), the pull requests the
 * patterns name, asked of GitHub, and the ledgers of scopes the lock says already own an entry.
 * All of it is what the dry run shows; an apply decides each entry again under the leases.
 */
import type { PatternMatch } from "../../../shared/adoption-patterns";
import { matchEntry } from "../../../shared/adoption-patterns";
import { type ItemOwnership, ownerOf, scopeOfOwner } from "../../../shared/schemas/ownership";
import { entryOfKey } from "../../adapters/op-spec";
import type { GitHubPulls, PullRequest } from "../../github/pull-requests";
import type { EngineDeps } from "../deps";
import { sameItem } from "../plan/item";
import type { ProviderContexts } from "../provider-context";
import { readBeforeLease } from "../write/recent-writes-section";
import { type AdmittedAdoption, refusedBy } from "./admission";
import type { PullAnswer, Survey } from "./decide";

/** GitHub lookups in flight at once: the adoption asks one per pull request a pattern names. */
const GITHUB_PARALLEL = 6;

export interface Surveyed {
  /** The list's keys, in the provider's order. */
  keys: string[];
  survey: Survey;
}

async function listKeys(
  deps: EngineDeps,
  contexts: ProviderContexts,
  a: AdmittedAdoption,
): Promise<string[]> {
  const ctx = contexts.get(a.req.connection);
  const { batch } = a.op;
  if (!batch) return a.op.list(ctx, a.listParams);
  const state = await readBeforeLease(deps, { batch, ctx, params: a.listParams, parent: a.parent });
  return batch.keys(state, a.listParams);
}

/** Each pull request's state, `GITHUB_PARALLEL` requests at a time. */
async function pullStates(github: GitHubPulls, numbers: readonly number[]) {
  const states = new Map<number, PullRequest | null>();
  for (let i = 0; i < numbers.length; i += GITHUB_PARALLEL) {
    const batch = numbers.slice(i, i + GITHUB_PARALLEL);
    const answers = await Promise.all(batch.map((n) => github.pull(n)));
    for (const [j, n] of batch.entries()) states.set(n, answers[j] ?? null);
  }
  return states;
}

export async function surveyList(
  deps: EngineDeps,
  contexts: ProviderContexts,
  a: AdmittedAdoption,
  github: GitHubPulls | null,
): Promise<Surveyed> {
  const { repository, environment } = a.req;
  const keys = await listKeys(deps, contexts, a);
  const record = deps.owned ? await deps.owned.read(a.parent) : { items: [], locators: [] };
  const owned = new Map<string, ItemOwnership>(
    record.items.filter((i) => i.op === a.op.name).map((i) => [i.key, i]),
  );

  // Only what an unambiguous match needs is asked of GitHub.
  const numbers = new Set<number>();
  const slugs = new Set<string>();
  for (const key of keys) {
    const matches = matchEntry(a.patterns, entryOfKey(a.op, key));
    const [m] = matches;
    if (matches.length !== 1 || m === undefined) continue;
    if ("pr" in m) numbers.add(m.pr);
    else slugs.add(m.branch);
  }
  let pulls = new Map<number, PullRequest | null>();
  let branches = new Map<string, PullRequest | "ambiguous">();
  if (github) {
    await github.checkRepository();
    pulls = await pullStates(
      github,
      [...numbers].sort((x, y) => x - y),
    );
    if (slugs.size > 0) branches = await github.byBranch(slugs);
  }

  // The scopes the service itself knows closed (a close webhook GitHub's answer may not show yet).
  const scopes = [
    ...numbers,
    ...[...branches.values()].flatMap((b) => (b === "ambiguous" ? [] : [b.number])),
  ];
  const closedScopes = new Set<string>();
  if (deps.gate) {
    const gate = deps.gate;
    const states = await Promise.all(
      scopes.map(async (n) => [`pr-${n}`, (await gate.read(repository.id, `pr-${n}`)).status] as const),
    );
    for (const [scope, status] of states) if (status === "closed") closedScopes.add(scope);
  }

  // The ledgers of scopes the lock says own an entry alone: is it theirs already (adopted before)?
  const ledgers = new Map<string, Set<string>>();
  for (const own of owned.values()) {
    const [only, more] = own.owners;
    const scope = only === undefined || more !== undefined ? null : scopeOfOwner(only);
    if (scope === null || scope.repositoryId !== repository.id || scope.environment !== environment) continue;
    if (ledgers.has(scope.scope)) continue;
    const { receipt } = await deps.store.read({ repository, environment, scope: scope.scope });
    ledgers.set(
      scope.scope,
      new Set(
        receipt.ledger
          .filter((e) => sameItem(e, { op: a.op.name, key: e.key, parent: a.parent }))
          .map((e) => e.key),
      ),
    );
  }

  const pull = (m: PatternMatch): PullAnswer => {
    if ("pr" in m) {
      if (!github) return { number: m.pr, state: "unknown" };
      const found = pulls.get(m.pr);
      return { number: m.pr, state: found ? found.state : "missing" };
    }
    const found = branches.get(m.branch);
    if (found === undefined) return "none";
    return found === "ambiguous" ? found : { number: found.number, state: found.state };
  };
  return {
    keys,
    survey: {
      ownership: (key) => owned.get(key),
      listed: record.locators.some((l) => l.op === a.op.name),
      ownerOf: (scope) => ownerOf({ repository, environment, scope }),
      scopeOf: (owner) => {
        const named = scopeOfOwner(owner);
        const ours = named?.repositoryId === repository.id && named.environment === environment;
        return ours ? named.scope : null;
      },
      inLedger: (scope, key) => ledgers.get(scope)?.has(key) ?? false,
      pull,
      scopeClosed: (scope) => closedScopes.has(scope),
      refused: (key) => refusedBy(deps, a, key),
    },
  };
}
