/**
 * `sponson adopt` as it reads (cli/adoption-text.ts): an adoption whose patterns matched entries
 * but that adopted none says why in a warning, so a run that did nothing never reads as done.
 */
import { describe, expect, it } from "vitest";
import { adoptionText } from "../../cli/adoption-text";
import { ADOPTION_OUTCOMES, type AdoptionEntry, type AdoptionResult } from "../../shared/schemas/adoption";

const PARENTS = "policy.environments.preview.parents";

function entry(n: number, over: Partial<AdoptionEntry>): AdoptionEntry {
  return {
    key: `https://pr-${n}.preview.example.com/callback`,
    scope: `pr-${n}`,
    pullRequest: { number: n, state: "open" },
    patterns: ["https://pr-{pr}.preview.example.com/callback"],
    foreign: true,
    owners: 0,
    outcome: "kept",
    ...over,
  };
}

function result(entries: AdoptionEntry[], dryRun = true): AdoptionResult {
  const counts = Object.fromEntries(ADOPTION_OUTCOMES.map((o) => [o, 0])) as AdoptionResult["counts"];
  for (const e of entries) counts[e.outcome] += 1;
  return {
    runId: "run-1",
    dryRun,
    repository: { id: 1, name: "acme/web" },
    environment: "preview",
    connection: "demo-auth0",
    op: "auth0.callbackUrl",
    parent: "auth0:sponson-demo.us.auth0.com:client:legacy-app",
    entries,
    counts,
    warnings: [],
  };
}

const warnings = (r: AdoptionResult) => adoptionText(r).filter((l) => l.startsWith("warning: "));

describe("an adoption that matched entries and adopted none", () => {
  it("warns, counting each reason the matched entries stayed", () => {
    const refused = [71, 72, 73].map((n) => entry(n, { reason: "policy", rule: PARENTS }));
    const local = {
      ...entry(0, { reason: "no-match", scope: null, pullRequest: null, patterns: [] }),
      key: "http://localhost:3000/callback",
    };
    expect(warnings(result([...refused, local], false))).toEqual([
      `warning: 3 entries matched a pattern and none was adopted: 3 the environment's policy does not admit it (${PARENTS})`,
    ]);
    expect(warnings(result([...refused, entry(74, { reason: "pull-request-closed" })]))[0]).toContain(
      "4 entries matched a pattern and none would be adopted: 3 the environment's policy does not admit it",
    );
  });

  it("control: no warning when one was adopted, or when every match is already its scope's", () => {
    const one = [entry(71, { outcome: "would-adopt" }), entry(72, { reason: "policy", rule: PARENTS })];
    expect(warnings(result(one))).toEqual([]);
    const again = [entry(71, { reason: "already-owned", foreign: false, owners: 1 })];
    expect(warnings(result(again))).toEqual([]);
  });

  it("an entry already owned names its owner, or how many own it", () => {
    const shared = entry(71, { reason: "already-owned", scope: null, foreign: false, owners: 2 });
    expect(adoptionText(result([shared])).join("\n")).toContain("kept: already owned by 2 scopes");
  });
});
