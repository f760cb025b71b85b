/**
 * Adoption decisions (docs/design.md, "Adopting existing entries"). Pure: what each entry of the
 * list is, from what was read before any lease (the dry run's table, and the plan an apply
 * follows), and what adopting one does, from its ownership read under the object's lease (the
 * decision an apply acts on: the earlier read may be stale).
 */
import { type AdoptionPattern, matchEntry, type PatternMatch } from "../../../shared/adoption-patterns";
import type { AdoptionEntry } from "../../../shared/schemas/adoption";
import type { ItemOwnership, OwnerChange } from "../../../shared/schemas/ownership";

/** What a pull request named by a pattern is, as GitHub said (unknown: not asked). */
export type PullAnswer =
  | { number: number; state: "open" | "closed" | "missing" | "unknown" }
  /** A branch that is the head of no pull request GitHub listed. */
  | "none"
  /** A branch that is the head of several open pull requests. */
  | "ambiguous";

/** What was read before any lease, as the decisions need it. */
export interface Survey {
  /** The lock's ownership of a key, read without a lease; undefined when it knows none. */
  ownership(key: string): ItemOwnership | undefined;
  /** Whether the list was ever looked at under a lease (else the first look marks it all foreign). */
  listed: boolean;
  /** How ownership names the scope (`<repository id>/<environment>/<scope>`). */
  ownerOf(scope: string): string;
  /** The scope an owner names when it is one of this repository and environment, else null. */
  scopeOf(owner: string): string | null;
  /** Whether the scope's receipt has the key in its ledger. */
  inLedger(scope: string, key: string): boolean;
  pull(match: PatternMatch): PullAnswer;
  /** Whether the service knows the scope closed (its scope state): nothing is adopted into it. */
  scopeClosed(scope: string): boolean;
  /** The rule that refuses the key in the environment, or null. */
  refused(key: string): string | null;
}

/** adopt: make it the scope's; remove: then remove it as the scope's close would (a closed pull request). */
export type EntryAction = "adopt" | "adopt-remove" | "remove" | "keep";

export interface EntryDecision {
  entry: AdoptionEntry;
  action: EntryAction;
}

export function decideEntry(
  key: string,
  match: { item: string; patterns: readonly AdoptionPattern[]; removeClosed: boolean },
  s: Survey,
): EntryDecision {
  const own = s.ownership(key);
  const matches = matchEntry(match.patterns, match.item);
  const entry: AdoptionEntry = {
    key,
    scope: null,
    pullRequest: null,
    patterns: matches.map((m) => m.pattern),
    // Never looked at: the first look marks every entry nobody owns foreign.
    foreign: own?.foreign ?? !s.listed,
    owners: own?.owners.length ?? 0,
    outcome: "kept",
  };
  const keep = (reason: AdoptionEntry["reason"], more: Partial<AdoptionEntry> = {}): EntryDecision => ({
    entry: { ...entry, ...more, outcome: "kept", reason },
    action: "keep",
  });
  const [m, second] = matches;
  const pull = m !== undefined && second === undefined ? s.pull(m) : null;
  const owned = ownedBy(own, s);
  if (owned !== undefined) {
    const pullRequest = typeof pull === "object" && pull !== null ? pull : null;
    const itsOwn = owned !== null && pullRequest !== null && `pr-${pullRequest.number}` === owned;
    // A scope's own entry is said to be so, whatever the patterns and GitHub say. Its own pull
    // request acts on it only as adopting would have: removed with removeClosed, as its close
    // would have removed it, or recorded in a ledger that lacks it (an adoption cut short).
    if (!itsOwn || pullRequest.state === "missing")
      return keep("already-owned", { scope: owned, pullRequest });
    if (pullRequest.state === "closed" && !match.removeClosed)
      return keep("pull-request-closed", { scope: owned, pullRequest });
    if (pullRequest.state !== "closed" && s.inLedger(owned, key))
      return keep("already-owned", { scope: owned, pullRequest });
  }
  if (m === undefined) return keep("no-match");
  // Two patterns claim it: whichever is right, guessing could hand it to the wrong scope.
  if (second !== undefined || pull === null) return keep("ambiguous");
  if (pull === "ambiguous") return keep("ambiguous");
  if (pull === "none" || pull.state === "missing")
    return keep("no-pull-request", pull === "none" ? {} : { pullRequest: pull });
  const scope = `pr-${pull.number}`;
  const named = { scope, pullRequest: pull };
  const closed = pull.state === "closed";
  if (closed && !match.removeClosed) return keep("pull-request-closed", named);
  // Its close was handled: no destroy would ever remove an entry adopted into it.
  if (!closed && s.scopeClosed(scope)) return keep("scope-closed", named);
  const refused = s.refused(key);
  if (refused !== null) return keep("policy", { ...named, rule: refused });
  const me = s.ownerOf(scope);
  if (own?.owners.some((o) => o !== me)) return keep("owned-by-another-scope", named);
  const adopted = own !== undefined && !own.foreign && own.owners.includes(me) && s.inLedger(scope, key);
  if (adopted && !closed) return keep("already-owned", named);
  const action: EntryAction = closed ? (adopted ? "remove" : "adopt-remove") : "adopt";
  return { entry: { ...entry, ...named, outcome: closed ? "would-remove" : "would-adopt" }, action };
}

/**
 * A scope's own entry (docs/design.md, "Ownership of shared entries"): not foreign, owned. Its one
 * owner's scope when that is of this repository and environment, null when it is owned otherwise
 * (several owners, or another repository's); undefined when no scope owns it (it may be foreign,
 * joined by a scope: adopting still has something to do).
 */
function ownedBy(own: ItemOwnership | undefined, s: Survey): string | null | undefined {
  if (own === undefined || own.foreign || own.owners.length === 0) return undefined;
  const [only, more] = own.owners;
  return only === undefined || more !== undefined ? null : s.scopeOf(only);
}

/** What adopting an item comes to under the object's lease. */
export type Adoption =
  /** The scope owns it alone from now on: these ownership changes make it so (none when it already does). */
  | { kind: "adopt"; changes: OwnerChange[] }
  /** Another scope owns it: it is theirs to keep, and it stays as it is. */
  | { kind: "taken" }
  /** Gone from the list: nothing to adopt. */
  | { kind: "absent" };

export function decideAdoption(own: ItemOwnership, present: boolean, me: string): Adoption {
  if (!present) return { kind: "absent" };
  if (own.owners.some((o) => o !== me)) return { kind: "taken" };
  const item = { op: own.op, key: own.key };
  const changes: OwnerChange[] = [];
  // There before any scope (or added by hand): the scope takes it as if it had created it.
  if (own.foreign) changes.push({ ...item, action: "not-foreign" });
  if (!own.owners.includes(me)) changes.push({ ...item, action: "add", owner: me });
  return { kind: "adopt", changes };
}
