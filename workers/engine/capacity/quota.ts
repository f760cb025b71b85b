/**
 * A share of each list (docs/design.md, "A share of each list"): how many entries of one op's list on
 * one object a scope may hold (`maxEntriesPerScope`, 10 on a capped list unless configured) and a
 * repository's scopes together (`maxEntriesPerRepository`, none unless configured). Pure. Only a
 * change that grows a share past its quota is refused: keeping what a scope holds, removing, a
 * destroy or a rollback never is, even above a quota lowered since it filled (as a list's cap).
 *
 * Checked twice: from the plan before any lock (its lines on the list against what the scope's
 * ledger holds there: `planOverQuota`), and under the parent lease with the cap, against the lock's
 * ownership records (quota-under-lease.ts). Both refuse with QUOTA_EXCEEDED.
 */
import { SponsonError } from "../../../shared/errors";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import type { OpSpec } from "../../adapters/op-spec";
import type { ListLimits } from "../../connections/list-limits";
import type { ItemRef } from "../plan/item";
import type { ListOwners } from "./list-owners";

/** A scope's share of a capped list when its connection sets none. */
export const DEFAULT_MAX_ENTRIES_PER_SCOPE = 10;

/** The shares of one list; at least one is set. */
export interface Quota {
  perScope?: number;
  perRepository?: number;
}

/**
 * The shares of `op`'s lists given what its connection sets: none for an op without a list (it has
 * no batch form), the default scope share on a list with a cap (documented, or the operator's).
 */
export function quotaOfList(op: OpSpec, limits: ListLimits): Quota | null {
  if (!op.batch) return null;
  const capped = op.capacity !== undefined || limits.maxEntries !== undefined;
  const perScope = limits.maxEntriesPerScope ?? (capped ? DEFAULT_MAX_ENTRIES_PER_SCOPE : undefined);
  const perRepository = limits.maxEntriesPerRepository;
  if (perScope === undefined && perRepository === undefined) return null;
  return {
    ...(perScope !== undefined ? { perScope } : {}),
    ...(perRepository !== undefined ? { perRepository } : {}),
  };
}

/** Who a share is counted for: a scope of a repository (the repository's name is for the answer). */
export interface ShareHolder {
  repository: RepositoryRef;
  environment: string;
  scope: string;
}

/** A share a change would take past its quota. */
export interface QuotaBreach {
  object: string;
  op: string;
  /** Which share: the scope's, or its repository's. */
  share: "scope" | "repository";
  max: number;
  holder: ShareHolder;
  /** Entries of the list the scope holds, and would hold once the change is made. */
  scope: { holds: number; after: number };
  /** The same for its repository's scopes together; null where it was not read (before any lock). */
  repository: { holds: number; after: number } | null;
  /** Where it was decided: from the plan before any lock, or under the parent lease. */
  checked: "plan" | "lease";
}

/** A plan line as the check before any lock reads it: its item, and the shares of its list. */
export interface PlannedLine extends ItemRef {
  quota: Quota | null;
}

/**
 * The first list whose lines would take the scope's share past a quota, from the plan alone: its
 * lines on one op's list of one object, against what the scope's ledger holds there (a plan that
 * does not grow the scope's share is never refused). The repository's quota is asked of the plan
 * alone too (its other scopes' holdings are read only under the lease).
 */
export function planOverQuota(
  lines: readonly PlannedLine[],
  ledger: readonly ItemRef[],
  holder: ShareHolder,
): QuotaBreach | null {
  const lists = new Map<string, PlannedLine[]>();
  for (const line of lines) {
    if (line.parent === null || line.quota === null) continue;
    const id = `${line.parent}\n${line.op}`;
    lists.set(id, [...(lists.get(id) ?? []), line]);
  }
  for (const planned of lists.values()) {
    const { parent, op, quota } = planned[0] as PlannedLine & { quota: Quota; parent: string };
    const after = new Set(planned.map((l) => l.key)).size;
    const holds = ledger.filter((e) => e.op === op && e.parent === parent).length;
    if (after <= holds) continue;
    const breach = {
      object: parent,
      op,
      holder,
      scope: { holds, after },
      repository: null,
      checked: "plan" as const,
    };
    if (quota.perScope !== undefined && after > quota.perScope)
      return { ...breach, share: "scope", max: quota.perScope };
    if (quota.perRepository !== undefined && after > quota.perRepository)
      return { ...breach, share: "repository", max: quota.perRepository };
  }
  return null;
}

/**
 * The refusal: the refused change was not written. `owners` (under the lease, a repository's
 * share) names the repository's scopes that hold the list, and the stale ones' destroy commands.
 */
export function quotaExceeded(breach: QuotaBreach, owners?: ListOwners): SponsonError {
  const { object, op, share, max, holder, scope, repository } = breach;
  const who = `${holder.environment}/${holder.scope}`;
  // Under the lease the figures are the run's whole change to the list, not this group's alone.
  const change = breach.checked === "plan" ? "this plan" : "this run's change";
  const what =
    share === "scope"
      ? `a scope may hold at most ${max} entries of ${op}'s list there; ${change} would make ${who} hold ${scope.after} (it holds ${scope.holds})`
      : `the scopes of ${holder.repository.name} may hold at most ${max} entries of ${op}'s list there together; ${change} would make them hold ${repository?.after ?? scope.after}${repository ? ` (they hold ${repository.holds})` : ""}`;
  const mine = owners?.scopes ?? [];
  const remedy =
    share === "scope"
      ? `put at most ${max} lines on that list in this scope's plan (what it holds it keeps), or have an operator raise maxEntriesPerScope of ${op}`
      : mine.some((s) => s.stale !== null)
        ? `destroy this repository's scopes that are done (${owners?.freeRoom.join("; ")}), or have an operator raise maxEntriesPerRepository of ${op}`
        : `destroy this repository's scopes that are done (\`sponson destroy --scope …\`), or have an operator raise maxEntriesPerRepository of ${op}`;
  // Under the lease an earlier group of the run (another object, or this one through another
  // connection) may have written already: only this group's write is known not made.
  const written = breach.checked === "plan" ? "Nothing was written" : "This write was not made";
  return new SponsonError("QUOTA_EXCEEDED", `${object}: ${what}. ${written}: ${remedy}`, {
    list: { object, op },
    quota: { share, max },
    scope: { environment: holder.environment, scope: holder.scope, ...scope },
    repository: {
      name: holder.repository.name,
      holds: repository?.holds ?? null,
      after: repository?.after ?? null,
    },
    checked: breach.checked,
    ...(owners ? { scopes: mine, freeRoom: owners.freeRoom } : {}),
  });
}
