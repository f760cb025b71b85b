/**
 * Turns an untrusted plan into resolved lines (docs/design.md, "Plans and connections"):
 * placeholders first, then each line checked against its op and its connection (configured, of
 * the op's type, allowed in this environment), its identity computed by the op's pure lockOn from
 * the connection's settings. Nothing here calls a provider or takes a lock.
 */
import { didYouMean } from "../../../shared/did-you-mean";
import { SponsonError } from "../../../shared/errors";
import {
  PLACEHOLDER,
  type PlaceholderContext,
  placeholderValues,
  VAR_NAME,
  varOf,
  varsUsedIn,
} from "../../../shared/placeholders";
import type { Line, Plan } from "../../../shared/schemas/plan";
import type { SecretRegistry } from "../../../shared/secrets";
import type { OpSpec, Params } from "../../adapters/op-spec";
import type { Connections } from "../../connections/connections";
import type { OpRegistry } from "./op-registry";

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
}

function substitute(text: string, { values, vars, itemParam }: Fill, where: string): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    const varName = varOf(name);
    if (varName !== null) {
      if (!VAR_NAME.test(varName))
        throw new SponsonError(
          "VALIDATION",
          `${where}: ${whole} is not a var name (a lowercase letter, then up to 31 of a-z 0-9 _)`,
        );
      // A var is the caller's value: in a param naming the object (a client id, a bucket, which
      // becomes a host) it could choose what is written to, so only the written item takes one.
      if (vars === undefined)
        throw new SponsonError(
          "VALIDATION",
          `${where}: ${whole}: vars fill only the line's item param (${itemParam}), never a param naming the provider object`,
        );
      const value = Object.hasOwn(vars, varName) ? vars[varName] : undefined;
      if (value === undefined)
        throw new SponsonError("VALIDATION", `${where}: ${whole} is not defined in the request's vars`, {
          vars: [varName],
        });
      return value;
    }
    if (!Object.hasOwn(values, name))
      throw new SponsonError("VALIDATION", `${where}: unknown placeholder ${whole}`);
    const value = values[name];
    if (value === undefined)
      throw new SponsonError("VALIDATION", `${where}: ${whole} has no value in this scope`);
    return value;
  });
}

export interface ResolveContext {
  ops: OpRegistry;
  connections: Connections;
  secrets: SecretRegistry;
}

export function resolveLine(
  line: Line,
  { ops, connections, secrets }: ResolveContext,
  placeholders: PlaceholderContext,
): ResolvedLine {
  const { environment } = placeholders;
  const where = `line "${line.id}"`;
  const op = ops.get(line.op);
  if (!op)
    throw new SponsonError(
      "VALIDATION",
      `${where}: unknown op "${line.op}".${didYouMean(line.op, ops.names())}`,
      {
        known: ops.names(),
      },
    );
  const connection = connections.use(line.connection, environment, where);
  if (connection.type !== op.providerType) {
    throw new SponsonError(
      "VALIDATION",
      `${where}: op ${line.op} needs a connection of type "${op.providerType}"; "${line.connection}" is ${connection.type}`,
    );
  }
  const values = placeholderValues(placeholders);
  const raw: Params = {};
  for (const [k, v] of Object.entries(line.params)) {
    const vars = k === op.itemParam ? (placeholders.vars ?? {}) : undefined;
    raw[k] = substitute(v, { values, vars, itemParam: op.itemParam }, `${where} params.${k}`);
  }
  const parsed = op.params.safeParse(raw);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new SponsonError("VALIDATION", `${where}: ${msg}`);
  }
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
 * Every `{vars.<name>}` the plan uses that the request's vars do not define, refused in one answer
 * (400) before any line is resolved: the caller fixes its `--var`s once, not one per retry.
 */
export function refuseUndefinedVars(plan: Plan, vars: Readonly<Record<string, string>> = {}): void {
  const missing = new Map<string, string>();
  for (const line of plan.lines)
    for (const value of Object.values(line.params))
      for (const name of varsUsedIn(value))
        if (!Object.hasOwn(vars, name) && !missing.has(name)) missing.set(name, line.id);
  if (missing.size === 0) return;
  const named = [...missing].map(([name, line]) => `{vars.${name}} (line "${line}")`).join(", ");
  const flags = [...missing.keys()].map((name) => `--var ${name}=…`).join(" ");
  throw new SponsonError(
    "VALIDATION",
    `the plan uses ${named}, which the request's vars do not define; send them in the body's \`vars\` (CLI: ${flags})`,
    { vars: [...missing.keys()] },
  );
}

/**
 * One item, one line: an item is its op, key and object (docs/design.md, "Ownership of shared
 * entries"), and two lines resolving to the same one would record one entry under two labels.
 */
export function refuseTwoLinesOfOneItem(lines: readonly ResolvedLine[]): void {
  const seen = new Map<string, string>();
  for (const line of lines) {
    const id = JSON.stringify([line.opName, line.key, line.parent]);
    const other = seen.get(id);
    if (other !== undefined) {
      throw new SponsonError(
        "VALIDATION",
        `lines "${other}" and "${line.id}" name the same ${line.opName} item on the same object`,
        { lines: [other, line.id] },
      );
    }
    seen.set(id, line.id);
  }
}
