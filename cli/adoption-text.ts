/** How `sponson adopt` reads on a terminal: one row per entry of the list, then what was done. */
import type { AdoptionEntry, AdoptionResult } from "../shared/schemas/adoption";
import { table } from "./render";

const REASONS: Record<NonNullable<AdoptionEntry["reason"]>, string> = {
  "no-match": "no pattern matches",
  ambiguous: "two patterns (or two open pull requests) claim it",
  "pull-request-closed": "pull request closed: --remove-closed removes it",
  "no-pull-request": "GitHub has no such pull request",
  policy: "the environment's policy does not admit it",
  "owned-by-another-scope": "another scope owns it",
  "already-owned": "already its scope's own",
  absent: "gone from the list",
  "scope-closed": "the service already closed its scope (nothing would ever remove it)",
};

const OUTCOMES: Record<AdoptionEntry["outcome"], string> = {
  "would-adopt": "would adopt",
  "would-remove": "would adopt and remove",
  adopted: "adopted",
  removed: "adopted and removed",
  released: "adopted; another scope keeps it",
  kept: "stays",
  failed: "failed",
};

/** Why it stayed: the reason's words, the owners when no one scope of here is named. */
function whyKept(e: AdoptionEntry): string {
  if (e.reason === "already-owned" && e.scope === null)
    return e.owners > 1
      ? `already owned by ${e.owners} scopes`
      : "already owned by a scope of another repository or environment";
  return e.reason ? REASONS[e.reason] : "";
}

function outcomeText(e: AdoptionEntry): string {
  if (e.outcome === "failed") return `failed: ${e.error?.code ?? "?"} ${e.error?.message ?? ""}`.trimEnd();
  if (e.outcome !== "kept") return OUTCOMES[e.outcome];
  const why = whyKept(e);
  const rule = e.rule ? ` (${e.rule})` : "";
  const kept =
    e.reason === "already-owned" ? "kept" : e.foreign || e.owners === 0 ? "stays foreign" : "stays";
  return why ? `${kept}: ${why}${rule}` : kept;
}

function pullText(e: AdoptionEntry): string {
  if (e.pullRequest === null) return "-";
  return e.pullRequest.state === "unknown"
    ? `#${e.pullRequest.number}`
    : `#${e.pullRequest.number} ${e.pullRequest.state}`;
}

/**
 * Patterns matched entries and nothing was (or would be) adopted: why, counted by reason, so a run
 * that changed nothing never reads as done. Not when every match is already its scope's (a second
 * run of the same adoption).
 */
function noneAdopted(result: AdoptionResult): string[] {
  const { counts } = result;
  const did =
    counts.adopted + counts.removed + counts.released + counts["would-adopt"] + counts["would-remove"];
  const matched = result.entries.filter((e) => e.patterns.length > 0);
  if (did > 0 || matched.every((e) => e.reason === "already-owned")) return [];
  const why = new Map<string, number>();
  for (const e of matched) {
    const said = e.outcome === "failed" ? "failed" : `${whyKept(e)}${e.rule ? ` (${e.rule})` : ""}`;
    why.set(said, (why.get(said) ?? 0) + 1);
  }
  const reasons = [...why].sort((a, b) => b[1] - a[1]).map(([said, n]) => `${n} ${said}`);
  const none = result.dryRun ? "none would be adopted" : "none was adopted";
  const entries = `${matched.length} ${matched.length === 1 ? "entry" : "entries"}`;
  return [`${entries} matched a pattern and ${none}: ${reasons.join("; ")}`];
}

export function adoptionText(result: AdoptionResult): string[] {
  const { counts } = result;
  const rows = result.entries.map((e) => [
    e.key,
    e.scope === null ? "-" : `${result.environment}/${e.scope}`,
    pullText(e),
    outcomeText(e),
  ]);
  const summary = result.dryRun
    ? `dry run: ${counts["would-adopt"]} would be adopted, ${counts["would-remove"]} adopted and removed, ${counts.kept} stay. Nothing was written; --apply does it.`
    : `${counts.adopted} adopted, ${counts.removed} removed, ${counts.released} let go, ${counts.kept} stay, ${counts.failed} failed (run ${result.runId}).`;
  return [
    `${result.op} on ${result.parent} (${result.entries.length} entries), into ${result.environment} of ${result.repository.name}`,
    "",
    ...table(["ENTRY", "SCOPE", "PULL REQUEST", "OUTCOME"], rows),
    "",
    ...[...result.warnings, ...noneAdopted(result)].map((w) => `warning: ${w}`),
    summary,
  ];
}
