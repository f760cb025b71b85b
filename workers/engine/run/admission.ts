/**
 * Everything refused before any lease and any outbound request (docs/design.md, "Run algorithm",
 * step 1, and "Provenance"): decisions on the request and the configuration, no I/O.
 */
import { SponsonError } from "../../../shared/errors";
import { ALL_URL_CHECKS } from "../../../shared/url-shape";
import { entryOfKey } from "../../adapters/op-spec";
import { assertItemShapes } from "../../policy/check-item-shapes";
import { isPolicyRefusal, type LineRefusal, refusedLines } from "../../policy/refused-lines";
import type { EngineDeps } from "../deps";
import type { PlanProblem } from "../plan/param-problem";
import {
  duplicateIds,
  planRefusal,
  type ResolvedLine,
  resolveLine,
  twoLinesOfOneItem,
} from "../plan/resolve-plan";
import type { PlanRequest, ScopeRequest } from "./scope-request";

/** A line refused on its own before any provider: its params or identity hold a registered secret. */
export type RefusedLine = { error: SponsonError; line: string; op: string };

/** A plan's lines after every check that needs no provider: resolved, or refused one by one. */
export interface Admitted {
  resolved: ResolvedLine[];
  refused: RefusedLine[];
}

/**
 * A declared provenance is stored in receipts and shown in lock answers: a value holding a
 * configured secret is refused before anything else (docs/design.md, "Provenance"), naming the
 * field, never the value.
 */
export function refuseSecretProvenance(deps: EngineDeps, req: ScopeRequest): void {
  const p = req.provenance;
  if (!p) return;
  for (const [field, value] of Object.entries(p)) {
    if (typeof value === "string" && deps.secrets.containsSecret(value)) {
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
 * identity and item. A bad line refuses the request (400/403): every 400 problem of every line in
 * one answer, in line order, so a plan is fixed in one round; a line whose params or identity
 * hold a registered secret is refused on its own (INTERNAL).
 */
export function admitPlan(deps: EngineDeps, req: PlanRequest): Admitted {
  const { plan, environment, scope, defaultBranch, sha, vars } = req;
  const headBranch = req.provenance?.headBranch ?? undefined;
  const admitted: Admitted = { resolved: [], refused: [] };
  const problems: PlanProblem[] = duplicateIds(plan);
  let forbidden: SponsonError | undefined;
  for (const [index, line] of plan.lines.entries()) {
    try {
      admitted.resolved.push(
        resolveLine(line, deps, { environment, scope, defaultBranch, sha, vars, headBranch }, index),
      );
    } catch (err) {
      if (!(err instanceof SponsonError)) throw err;
      if (err.code === "INTERNAL") admitted.refused.push({ error: err, line: line.id, op: line.op });
      else if (err.code === "VALIDATION")
        problems.push(...((err.detail?.problems as PlanProblem[] | undefined) ?? []));
      // A connection the environment may not use is the policy's kind of refusal (403): said once
      // the plan has no 400 problem left, as before.
      else forbidden ??= err;
    }
  }
  const indexOf = (id: string) => plan.lines.findIndex((l) => l.id === id);
  problems.push(...twoLinesOfOneItem(admitted.resolved, indexOf));
  if (problems.length > 0) throw planRefusal(problems);
  if (forbidden) throw forbidden;
  const items = admitted.resolved.map((l) => ({ line: l.id, op: l.opName, item: entryOfKey(l.op, l.key) }));
  assertItemShapes(environment, items, deps.urlChecks?.(environment) ?? ALL_URL_CHECKS);
  // Every line is asked, and every refusal answered at once (workers/policy/refused-lines.ts).
  const refusals: LineRefusal[] = [];
  for (const line of admitted.resolved) {
    try {
      deps.policy?.check({
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
  return admitted;
}
