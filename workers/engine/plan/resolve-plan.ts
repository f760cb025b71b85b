/**
 * Turns an untrusted plan into resolved lines (docs/design.md, "Plans and connections"):
 * placeholders first, then each line checked against its op and its connection (configured, of
 * the op's type, allowed in this environment), its identity computed by the op's pure lockOn from
 * the connection's settings. Nothing here calls a provider or takes a lock.
 */
import { didYouMean } from "../../../shared/did-you-mean";
import { SponsonError } from "../../../shared/errors";
import {
  isPlatformPlaceholder,
  PLACEHOLDER,
  type PlaceholderContext,
  type PlatformValues,
  placeholderValues,
  VAR_NAME,
  varOf,
} from "../../../shared/placeholders";
import { duplicateLineIds, type Line, type Plan } from "../../../shared/schemas/plan";
import type { SecretRegistry } from "../../../shared/secrets";
import type { OpSpec, Params } from "../../adapters/op-spec";
import type { Connections, UsableConnection } from "../../connections/connections";
import { admissionParams } from "./item-shape";
import type { OpRegistry } from "./op-registry";
import {
  emptySegmentText,
  inLineOrder,
  type PlanProblem,
  paramIssueText,
  type ShowValue,
  showValue,
} from "./param-problem";
import { platformValue } from "./platform-value";

export interface ResolvedLine {
  id: string;
  opName: string;
  op: OpSpec;
  /** The configured connection the line names. */
  connection: string;
  params: Params;
  key: string;
  parent: string | null;
}

interface Fill {
  values: Record<string, string | undefined>;
  /** The request's vars; undefined for a param that names no item (vars fill item params only). */
  vars: Readonly<Record<string, string>> | undefined;
  /** The op's item param, named in the refusal of a var anywhere else. */
  itemParam: string;
  /** A platform connection's deployment; undefined for every other run. */
  platform: PlatformValues | undefined;
}

/** A param's text with its placeholders filled, or what stopped each one (all of them, not the first). */
function substitute(
  text: string,
  { values, vars, itemParam, platform }: Fill,
): { value: string; problems: Array<{ message: string; var?: string }> } {
  const problems: Array<{ message: string; var?: string }> = [];
  const value = text.replace(PLACEHOLDER, (whole, name: string) => {
    if (isPlatformPlaceholder(name)) {
      const said = platformValue(whole, name, { inItemParam: vars !== undefined, itemParam, platform });
      if ("message" in said) problems.push(said);
      return "value" in said ? said.value : whole;
    }
    const varName = varOf(name);
    if (varName !== null) {
      if (!VAR_NAME.test(varName)) {
        problems.push({
          message: `${whole} is not a var name (a lowercase letter, then up to 31 of a-z 0-9 _)`,
        });
        return whole;
      }
      // A var is the caller's value: in a param naming the object (a client id, a bucket, which
      // becomes a host) it could choose what is written to, so only the written item takes one.
      if (vars === undefined) {
        problems.push({
          message: `${whole}: vars fill only the line's item param (${itemParam}), never a param naming the provider object`,
        });
        return whole;
      }
      const given = Object.hasOwn(vars, varName) ? vars[varName] : undefined;
      if (given === undefined) {
        problems.push({
          message: `${whole} is not defined in the request's vars; send it in the body's \`vars\` (CLI: --var ${varName}=…)`,
          var: varName,
        });
        return whole;
      }
      return given;
    }
    if (!Object.hasOwn(values, name)) {
      problems.push({ message: `unknown placeholder ${whole}` });
      return whole;
    }
    const filled = values[name];
    if (filled === undefined) {
      problems.push({ message: `${whole} has no value in this scope` });
      return whole;
    }
    return filled;
  });
  return { value, problems };
}

/**
 * A line's problems as one VALIDATION error: `admitPlan` gathers every line's into one answer
 * (docs/design.md, "Run algorithm", step 1); on its own the message names the first.
 */
function lineRefusal(problems: PlanProblem[]): SponsonError {
  const first = problems[0] as PlanProblem;
  return new SponsonError("VALIDATION", problemText(first), { problems });
}

/** `line "origin" params.origin: …`: a problem as one line of text. */
export function problemText(problem: PlanProblem): string {
  const where = problem.path.replace(/^lines\.\d+\.?/, "");
  if (problem.line === null) return `${problem.path}: ${problem.message}`;
  return `line "${problem.line}"${where ? ` ${where}` : ""}: ${problem.message}`;
}

export interface ResolveContext {
  ops: OpRegistry;
  connections: Connections;
  secrets: SecretRegistry;
}

/**
 * One line, resolved; or refused: VALIDATION naming every problem of the line (detail `problems`),
 * FORBIDDEN for a connection the environment may not use, INTERNAL for a secret in it.
 */
export function resolveLine(
  line: Line,
  { ops, connections, secrets }: ResolveContext,
  placeholders: PlaceholderContext,
  index = 0,
): ResolvedLine {
  const { environment } = placeholders;
  const where = `line "${line.id}"`;
  const problems: PlanProblem[] = [];
  const add = (path: string, message: string, extra: { var?: string } = {}) =>
    problems.push({ line: line.id, index, path: `lines.${index}.${path}`, message, ...extra });
  const op = ops.get(line.op);
  if (!op) {
    add("op", `unknown op "${line.op}".${didYouMean(line.op, ops.names())}`);
    throw lineRefusal(problems);
  }
  let connection: UsableConnection | undefined;
  try {
    connection = connections.use(line.connection, environment, where);
  } catch (err) {
    if (!(err instanceof SponsonError) || err.code !== "VALIDATION") throw err;
    add("connection", err.message.replace(`${where}: `, ""));
  }
  if (connection && connection.type !== op.providerType)
    add(
      "connection",
      `op ${line.op} needs a connection of type "${op.providerType}"; "${line.connection}" is ${connection.type}`,
    );
  const values = placeholderValues(placeholders);
  const raw: Params = {};
  /** Params whose placeholders could not be filled: their problem is said, not the schema's. */
  const unfilled = new Set<string>();
  for (const [k, v] of Object.entries(line.params)) {
    const vars = k === op.itemParam ? (placeholders.vars ?? {}) : undefined;
    const filled = substitute(v, { values, vars, itemParam: op.itemParam, platform: placeholders.platform });
    raw[k] = filled.value;
    if (filled.problems.length > 0) unfilled.add(k);
    for (const p of filled.problems) add(`params.${k}`, p.message, p.var === undefined ? {} : { var: p.var });
  }
  // A new item meets more than the op's params: an origin's shape (item-shape.ts).
  const schema = admissionParams(op);
  const parsed = schema.safeParse(raw);
  // A value is shown back to the caller, who sent it, except one holding a registered secret.
  const show: ShowValue = (value) =>
    secrets.containsSecret(value) ? "(a value holding a registered secret, not shown)" : showValue(value);
  const fill = (name: string) => {
    if (isPlatformPlaceholder(name)) return placeholders.platform?.[name];
    const v = varOf(name);
    if (v === null) return (values as Record<string, string | undefined>)[name];
    return placeholders.vars && Object.hasOwn(placeholders.vars, v) ? placeholders.vars[v] : undefined;
  };
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      if (typeof key === "string" && unfilled.has(key)) continue;
      const path = ["params", ...issue.path.map(String)].join(".");
      if (typeof key !== "string" || issue.path.length !== 1 || !Object.hasOwn(raw, key)) {
        add(path, issue.message);
        continue;
      }
      add(
        path,
        paramIssueText({
          schema,
          params: raw,
          key,
          template: line.params[key] ?? "",
          expected: issue.message,
          fill,
          show,
        }),
      );
    }
  }
  const item = op.itemParam;
  const itemRefused = !parsed.success && parsed.error.issues.some((i) => i.path[0] === item);
  if (!unfilled.has(item) && !itemRefused && line.params[item] !== undefined) {
    const empty = emptySegmentText({ template: line.params[item], fill, show });
    if (empty !== null) add(`params.${item}`, empty);
  }
  if (problems.length > 0 || !parsed.success || !connection) throw lineRefusal(problems);
  const params = parsed.data;
  // Params and identities are written to receipts and lock records: no secret may hide in them.
  if (Object.values(params).some((v) => secrets.containsSecret(v))) {
    throw new SponsonError(
      "INTERNAL",
      `${where}: a parameter contains a registered secret; refusing the line`,
    );
  }
  const parent = op.lockOn(params, connection.settings);
  if (parent !== null && secrets.containsSecret(parent)) {
    throw new SponsonError(
      "INTERNAL",
      `${where}: its lock identity contains a registered secret; nothing was written`,
    );
  }
  return {
    id: line.id,
    opName: line.op,
    op,
    connection: line.connection,
    params,
    key: op.key(params),
    parent,
  };
}

/**
 * One item, one line: an item is its op, key and object (docs/design.md, "Ownership of shared
 * entries"), and two lines resolving to the same one would record one entry under two labels.
 */
export function twoLinesOfOneItem(
  lines: readonly ResolvedLine[],
  indexOf: (id: string) => number,
): PlanProblem[] {
  const seen = new Map<string, string>();
  const problems: PlanProblem[] = [];
  for (const line of lines) {
    const id = JSON.stringify([line.opName, line.key, line.parent]);
    const other = seen.get(id);
    if (other !== undefined) {
      const index = indexOf(line.id);
      problems.push({
        line: line.id,
        index,
        path: `lines.${index}`,
        message: `names the same ${line.opName} item on the same object as line "${other}"`,
      });
    } else seen.set(id, line.id);
  }
  return problems;
}

/** Each line whose id an earlier line has (the plan's shape allows it, so that it is said with the rest). */
export function duplicateIds(plan: Plan): PlanProblem[] {
  return duplicateLineIds(plan.lines).map(({ index, id, first }) => ({
    line: id,
    index,
    path: `lines.${index}.id`,
    message: `duplicate line id "${id}": line ${first} has it already`,
  }));
}

/** One 400 for every problem found, in line order, naming the vars the request left undefined. */
export function planRefusal(found: readonly PlanProblem[]): SponsonError {
  const problems = inLineOrder(found);
  const vars = [...new Set(problems.flatMap((p) => (p.var === undefined ? [] : [p.var])))];
  const message =
    problems.length === 1
      ? problemText(problems[0] as PlanProblem)
      : `the plan has ${problems.length} problems:\n${problems.map((p) => `  ${problemText(p)}`).join("\n")}`;
  return new SponsonError("VALIDATION", message, {
    problems: problems.map(({ line, path, message: m }) => ({ line, path, message: m })),
    ...(vars.length > 0 ? { vars } : {}),
  });
}
