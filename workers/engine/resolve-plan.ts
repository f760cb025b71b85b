/**
 * Turns an untrusted plan into resolved lines (docs/design.md, "Plans and connections"):
 * placeholders first, then each line checked against its op and its connection (configured, of
 * the op's type, allowed in this environment), its identity computed by the op's pure lockOn from
 * the connection's settings. Nothing here calls a provider or takes a lock.
 */
import { SponsonError } from "../../shared/errors";
import { PLACEHOLDER, type PlaceholderContext, placeholderValues } from "../../shared/placeholders";
import type { Line } from "../../shared/schemas/plan";
import type { SecretRegistry } from "../../shared/secrets";
import type { Connections } from "../connections/connections";
import type { OpRegistry } from "./op-registry";
import type { OpSpec, Params } from "./op-spec";

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

function substitute(text: string, values: Record<string, string | undefined>, where: string): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
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
  if (!op) throw new SponsonError("VALIDATION", `${where}: unknown op "${line.op}"`, { known: ops.names() });
  const connection = connections.use(line.connection, environment, where);
  if (connection.type !== op.providerType) {
    throw new SponsonError(
      "VALIDATION",
      `${where}: op ${line.op} needs a connection of type "${op.providerType}"; "${line.connection}" is ${connection.type}`,
    );
  }
  const values = placeholderValues(placeholders);
  const raw: Params = {};
  for (const [k, v] of Object.entries(line.params)) raw[k] = substitute(v, values, `${where} params.${k}`);
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
