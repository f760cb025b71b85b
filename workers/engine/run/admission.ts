/**
 * Everything refused before any lease and any outbound request (docs/design.md, "Run algorithm",
 * step 1, and "Provenance"): decisions on the request and the configuration, no I/O.
 */
import { SponsonError } from "../../../shared/errors";
import { ALL_URL_CHECKS } from "../../../shared/url-shape";
import { entryOfKey } from "../../adapters/op-spec";
import { bindingMessage, connectionNotBound, type UnboundLine } from "../../connections/binding";
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
 * the request's vars), then whether the connection takes writes from the request's repository
 * (CONNECTION_NOT_BOUND), the URL shape check on every item, and the connection's objects and the
 * write policy on its identity and item. A bad line refuses the request (400/403): every 400
 * problem of every line in one answer, in line order, so a plan is fixed in one round; a line
 * whose params or identity hold a registered secret is refused on its own (INTERNAL).
 */
export function admitPlan(deps: EngineDeps, req: PlanRequest): Admitted {
  const { plan, environment, scope, defaultBranch, sha, vars, platform } = req;
  const headBranch = req.provenance?.headBranch ?? undefined;
  const admitted: Admitted = { resolved: [], refused: [] };
  const problems: PlanProblem[] = duplicateIds(plan);
  let forbidden: SponsonError | undefined;
  for (const [index, line] of plan.lines.entries()) {
    try {
      admitted.resolved.push(
        resolveLine(
          line,
          deps,
          { environment, scope, defaultBranch, sha, vars, headBranch, platform },
          index,
        ),
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
  refuseUnboundLines(deps, req, admitted.resolved);
  const items = admitted.resolved.map((l) => ({
    line: l.id,
    op: l.opName,
    item: entryOfKey(l.op, l.key),
    coversSubdomains: l.op.coversSubdomains,
  }));
  assertItemShapes(environment, items, deps.urlChecks?.(environment) ?? ALL_URL_CHECKS);
  // Every line is asked, and every refusal answered at once (workers/policy/refused-lines.ts).
  const refusals: LineRefusal[] = [];
  for (const line of admitted.resolved) {
    try {
      refuseForeignObject(deps, environment, line);
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

/**
 * Objects belong to repositories (docs/design.md): every line whose connection does not take the
 * request's repository's writes, in one 403. Asked for preview as for apply: a preview reads the
 * object with the service's credentials, and what another repository's object holds is its own.
 */
function refuseUnboundLines(deps: EngineDeps, req: PlanRequest, lines: readonly ResolvedLine[]): void {
  const repository = req.repository.name;
  const refused: UnboundLine[] = [];
  for (const line of lines) {
    const binding = deps.connections.bindingOf(line.connection, repository);
    if (binding.bound) continue;
    refused.push({
      line: line.id,
      op: line.opName,
      connection: line.connection,
      reason: binding.reason,
      message: bindingMessage(line.connection, repository, binding.reason),
    });
  }
  if (refused.length > 0) throw connectionNotBound(repository, refused);
}

/**
 * A connection that names its objects (`parents`) writes only those: a repository's own connection
 * to a tenant it shares cannot reach another repository's application. The write policy's kind of
 * refusal (FORBIDDEN, said with the policy's, every line at once).
 */
function refuseForeignObject(deps: EngineDeps, environment: string, line: ResolvedLine): void {
  if (deps.connections.writesObject(line.connection, line.parent)) return;
  throw new SponsonError(
    "FORBIDDEN",
    `connection "${line.connection}" may not write object "${line.parent}": it is not among the objects SPONSON_CONNECTIONS.${line.connection}.parents names`,
    {
      rule: "connection.parents",
      environment,
      connection: line.connection,
      op: line.opName,
      identity: line.parent,
      item: entryOfKey(line.op, line.key),
    },
  );
}
