/**
 * Connections for tests. They are service configuration (SPONSON_CONNECTIONS), so tests register
 * the ones they use here and every Worker the tests build reads them from its env, exactly as a
 * deployment would: `call()` and `testEnv()` merge them into the bindings.
 */
import { env } from "cloudflare:workers";
import type { Connection } from "../../workers/connections/connection-schema";

/** Environments the tests run in; a connection is usable in all of them unless a test says otherwise. */
export const TEST_ENVIRONMENTS = ["preview", "staging", "production"];

const registered: Record<string, unknown> = {};

export type ConnectionInput = Omit<Connection, "environments" | "config" | "secrets"> &
  Partial<Pick<Connection, "environments" | "config" | "secrets">>;

/** Registers (or replaces) a connection and returns its name. */
export function registerConnection(name: string, connection: ConnectionInput): string {
  registered[name] = { environments: TEST_ENVIRONMENTS, config: {}, secrets: {}, ...connection };
  return name;
}

/** `bindings` with the registered connections added to whatever SPONSON_CONNECTIONS it has. */
export function testEnv<E extends object>(bindings: E = env as E): E {
  const own = (bindings as { SPONSON_CONNECTIONS?: unknown }).SPONSON_CONNECTIONS;
  const base = typeof own === "string" && own !== "" ? (JSON.parse(own) as Record<string, unknown>) : {};
  return { ...bindings, SPONSON_CONNECTIONS: JSON.stringify({ ...registered, ...base }) };
}

type BlockValue = string | number | boolean | { secret: string };

/**
 * Registers a connection written the short way: `{ type, field: value, credential: { secret:
 * "NAME" } }` — plain fields become its config, `{ secret }` fields the Worker secrets it names.
 */
export function connectionOf(name: string, block: { type: string } & Record<string, BlockValue>): string {
  const config: Record<string, string | number | boolean> = {};
  const secrets: Record<string, string> = {};
  for (const [field, value] of Object.entries(block)) {
    if (field === "type") continue;
    if (typeof value === "object") secrets[field] = value.secret;
    else config[field] = value;
  }
  return registerConnection(name, { type: block.type, config, secrets });
}
