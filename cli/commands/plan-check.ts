/**
 * `plan check`: every problem of a plan that needs no service, at once and in line order, each with
 * its path (docs/cli.md, "plan check"); exit 0 (nothing to fix) or 1. Nothing is sent anywhere.
 */
import { didYouMean } from "../../shared/did-you-mean";
import { PLACEHOLDER, PLACEHOLDER_NAMES, VAR_NAME, varOf } from "../../shared/placeholders";
import {
  duplicateLineIds,
  type Line,
  lineSchema,
  MAX_PLAN_LINES,
  planSchema,
} from "../../shared/schemas/plan";
import { ALL_URL_CHECKS, itemShapeProblems } from "../../shared/url-shape";
import { ADAPTERS } from "../../workers/adapters";
import type { ConfigProblem } from "../../workers/config/config-report";
import { admissionParams } from "../../workers/engine/plan/item-shape";
import {
  emptySegmentText,
  inLineOrder,
  type PlanProblem,
  paramIssueText,
  showValue,
} from "../../workers/engine/plan/param-problem";
import { CliError, type ExitCode } from "../cli-error";
import { type Invocation, varsOf } from "../context";
import { printProblems, subcommand } from "./check";
import { readText } from "./deployment-vars";

/** Stand-in values: any value of the right shape, so the op's params schema judges the rest. */
const SAMPLE: Record<(typeof PLACEHOLDER_NAMES)[number], string> = {
  environment: "preview",
  scope: "pr-1",
  pr: "1",
  branch: "example-branch",
  branchSlug: "example-branch",
  sha: "0".repeat(40),
  shortSha: "0".repeat(7),
};

/**
 * `{vars.<name>}` in a param: the `--var` value in the item param, a problem anywhere else or when
 * no `--var` gives it (as the service refuses both).
 */
function fillVar(
  whole: string,
  name: string,
  vars: Readonly<Record<string, string>>,
  where: { isItem: boolean; itemParam: string | undefined },
): { value: string } | { problem: string } {
  if (!VAR_NAME.test(name))
    return { problem: `${whole} is not a var name (a lowercase letter, then up to 31 of a-z 0-9 _)` };
  if (!where.isItem)
    return {
      problem: `${whole}: vars fill only the line's item param (${where.itemParam ?? "the op's"}), never a param naming the provider object`,
    };
  const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
  return value === undefined
    ? { problem: `${whole} is not defined: pass --var ${name}=<a value of the right shape>` }
    : { value };
}

/** Where a line's problems are reported: `lines.<i>(<id>)`. */
const lineAt = (index: number, id: string) => `lines.${index}(${id})`;

/**
 * Every problem of a plan that needs no service, all at once and in line order: its shape (a
 * malformed line is named and the lines around it still checked), duplicate line ids, ops,
 * placeholders (with `vars`), each op's params and an origin item's shape (the value after
 * filling, and a fix: workers/engine/plan/param-problem.ts), an empty path segment a value made,
 * and the URL shape check on each item with every rule on.
 */
export function planProblems(plan: unknown, vars: Readonly<Record<string, string>> = {}): ConfigProblem[] {
  const found: PlanProblem[] = [];
  const malformed = new Set<number>();
  const parsed = planSchema.safeParse(plan);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const index = issue.path[0] === "lines" && typeof issue.path[1] === "number" ? issue.path[1] : -1;
      if (index >= 0) malformed.add(index);
      found.push({
        line: null,
        index,
        path: ["plan", ...issue.path.map(String)].join("."),
        message: issue.message,
      });
    }
  const given = (plan as { lines?: unknown } | null)?.lines;
  const lines: Array<{ line: Line; index: number }> = [];
  if (Array.isArray(given))
    given.slice(0, MAX_PLAN_LINES).forEach((raw, index) => {
      const line = malformed.has(index) ? null : lineSchema.safeParse(raw);
      if (line?.success) lines.push({ line: line.data, index });
    });
  for (const { index, id, first } of duplicateLineIds(lines.map((l) => l.line))) {
    const at = lines[index]?.index ?? index;
    found.push({
      line: id,
      index: at,
      path: `${lineAt(at, id)}.id`,
      message: `duplicate line id "${id}": line ${lines[first]?.index ?? first} has it already`,
    });
  }
  for (const { line, index } of lines) found.push(...lineProblems(line, index, vars));
  return inLineOrder(found).map(({ path, message }) => ({ path, message }));
}

const OPS = new Map(ADAPTERS.flatMap((a) => a.ops.map((op) => [op.name, op] as const)));

/** One well-formed line's problems: its op, placeholders, params and item shape. */
function lineProblems(line: Line, index: number, vars: Readonly<Record<string, string>>): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const at = lineAt(index, line.id);
  const add = (path: string, message: string) => problems.push({ line: line.id, index, path, message });
  const op = OPS.get(line.op);
  if (!op)
    add(
      `${at}.op`,
      `unknown op "${line.op}".${didYouMean(line.op, OPS.keys())} Known: ${[...OPS.keys()].sort().join(", ")}`,
    );
  const params: Record<string, string> = {};
  /** Params left with a placeholder in them: its problem is theirs, not the params schema's. */
  const unfilled = new Set<string>();
  for (const [key, value] of Object.entries(line.params)) {
    params[key] = value.replace(PLACEHOLDER, (whole, name: string) => {
      const varName = varOf(name);
      if (varName !== null) {
        const filled = fillVar(whole, varName, vars, {
          isItem: op !== undefined && key === op.itemParam,
          itemParam: op?.itemParam,
        });
        if ("value" in filled) return filled.value;
        add(`${at}.params.${key}`, filled.problem);
        unfilled.add(key);
        return whole;
      }
      if (Object.hasOwn(SAMPLE, name)) return SAMPLE[name as keyof typeof SAMPLE];
      unfilled.add(key);
      add(
        `${at}.params.${key}`,
        `unknown placeholder ${whole}; known: ${PLACEHOLDER_NAMES.map((n) => `{${n}}`).join(", ")}`,
      );
      return whole;
    });
  }
  if (!op) return problems;
  const fill = (name: string) => {
    const v = varOf(name);
    if (v !== null) return Object.hasOwn(vars, v) ? vars[v] : undefined;
    return Object.hasOwn(SAMPLE, name) ? SAMPLE[name as keyof typeof SAMPLE] : undefined;
  };
  // What the service admits: the op's params and, for an origin item, its shape.
  const schema = admissionParams(op);
  const checked = schema.safeParse(params);
  if (!checked.success) {
    for (const issue of checked.error.issues.filter((i) => !unfilled.has(String(i.path[0])))) {
      const key = issue.path[0];
      const path = [`${at}.params`, ...issue.path.map(String)].join(".");
      if (typeof key !== "string" || issue.path.length !== 1 || !Object.hasOwn(params, key)) {
        add(path, issue.message);
        continue;
      }
      add(
        path,
        paramIssueText({
          schema,
          params,
          key,
          template: line.params[key] ?? "",
          expected: issue.message,
          fill,
          show: showValue,
        }),
      );
    }
    return problems;
  }
  const item = checked.data[op.itemParam];
  if (item === undefined || unfilled.has(op.itemParam)) return problems;
  const empty = emptySegmentText({ template: line.params[op.itemParam] ?? "", fill, show: showValue });
  if (empty !== null) add(`${at}.params.${op.itemParam}`, empty);
  for (const problem of itemShapeProblems(item, ALL_URL_CHECKS, { matchesSubdomains: op.matchesSubdomains }))
    add(`${at}.params.${op.itemParam}`, `${problem.rule}: ${problem.message}`);
  return problems;
}

export async function planCommand(inv: Invocation): Promise<ExitCode> {
  subcommand(inv);
  varsOf(inv);
  const path = inv.positionals[1];
  if (path === undefined) throw new CliError(2, "usage: sponson plan check <plan.json>");
  let plan: unknown;
  try {
    plan = JSON.parse(readText(path, "plan"));
  } catch (err) {
    if (err instanceof CliError) throw err;
    return printProblems(inv, path, [{ path: "plan", message: `not JSON: ${(err as Error).message}` }], {});
  }
  const lines = Array.isArray((plan as { lines?: unknown }).lines)
    ? (plan as { lines: unknown[] }).lines.length
    : 0;
  return printProblems(
    inv,
    `${path} (${lines} line${lines === 1 ? "" : "s"})`,
    planProblems(plan, varsOf(inv)),
    {},
  );
}
