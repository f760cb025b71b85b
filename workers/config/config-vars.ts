/**
 * How each of the Worker's configuration vars is read. Vars arrive as strings from wrangler.toml and
 * as values from JSON bindings; both are accepted. Unset means the default; a value that is set but
 * invalid is refused with a message naming the variable, never replaced by a guess. Secrets (the
 * service keys, the webhook secret) are checked for presence only and never echoed.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import { DEFAULT_LEASE_TTL_SECONDS, DEFAULT_WAIT_TIMEOUT_SECONDS } from "../../shared/lease-defaults";
import { isValidEnvironment } from "../../shared/lock-keys";
import { type RepositoryConfig, repositoriesConfigSchema } from "../../shared/schemas/repository";
import { type ConnectionsDocument, connectionsSchema } from "../connections/connection-schema";
import { type PlatformConnection, platformsConfigSchema } from "../platforms/platform-schema";
import { type PolicyConfig, policySchema } from "../policy/policy-schema";

export const DEFAULT_GITHUB_ISSUER = "https://token.actions.githubusercontent.com";
export const DEFAULT_ENVIRONMENTS: readonly string[] = ["preview"];

export type Vars = Readonly<Record<string, unknown>>;

/** The operator's mistake, for the problem response (500 INTERNAL) and the Worker log. */
export function misconfigured(message: string): SponsonError {
  console.error(`config: ${message}`);
  return new SponsonError("INTERNAL", message);
}

function unset(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** A short, printable rendering of a non-secret value for an error message. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

export function positiveSeconds(vars: Vars, name: string, fallback: number): number {
  const raw = vars[name];
  if (unset(raw)) return fallback;
  const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n <= 0) {
    throw misconfigured(`${name} must be a positive number of seconds, got ${shown(raw)}`);
  }
  return n;
}

export function optionalText(vars: Vars, name: string, { secret = false } = {}): string | null {
  const raw = vars[name];
  if (unset(raw)) return null;
  if (typeof raw !== "string" || raw.trim() === "") {
    throw misconfigured(`${name} must be a non-empty string${secret ? "" : `, got ${shown(raw)}`}`);
  }
  return raw;
}

/** `on` or `off`; null when unset. */
export function onOff(vars: Vars, name: string): "on" | "off" | null {
  const raw = optionalText(vars, name);
  if (raw === null) return null;
  if (raw !== "on" && raw !== "off") throw misconfigured(`${name} must be "on" or "off", got ${shown(raw)}`);
  return raw;
}

/** JSON text (or an already-parsed JSON binding) checked against `schema`; `undefined` when unset. */
export function jsonVar<T>(vars: Vars, name: string, schema: z.ZodType<T>): T | undefined {
  const raw = vars[name];
  if (unset(raw)) return undefined;
  let json: unknown = raw;
  if (typeof raw === "string") {
    try {
      json = JSON.parse(raw);
    } catch {
      throw misconfigured(`${name} is not JSON`);
    }
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    throw misconfigured(`${name} is not valid: ${where}${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

export const issuerSchema = z
  .url()
  .refine((u) => u.startsWith("https://"), "the issuer must be https")
  .transform((u) => u.replace(/\/+$/, ""));

export function githubIssuer(vars: Vars): string {
  const raw = optionalText(vars, "GITHUB_OIDC_ISSUER") ?? DEFAULT_GITHUB_ISSUER;
  const parsed = issuerSchema.safeParse(raw);
  if (!parsed.success) throw misconfigured(`GITHUB_OIDC_ISSUER must be an https URL, got ${shown(raw)}`);
  return parsed.data;
}

export function repositories(vars: Vars): RepositoryConfig[] {
  return jsonVar(vars, "SPONSON_REPOSITORIES", repositoriesConfigSchema) ?? [];
}

const environmentNameSchema = z.string().refine(isValidEnvironment, "not a valid environment name");

/** An environment with its capacity settings (docs/design.md, "Lists at their cap"). */
const environmentEntrySchema = z.strictObject({
  name: environmentNameSchema,
  /** A scope whose last run is older than this many days is stale (LIST_FULL names it). */
  staleAfterDays: z.int().min(1).max(3650).optional(),
  /** A write past a list's cap first evicts this repository's stale scopes' entries there. */
  evictStale: z.boolean().optional(),
});
export type EnvironmentSettings = Omit<z.infer<typeof environmentEntrySchema>, "name">;

export const environmentsSchema = z
  .array(z.union([environmentNameSchema, environmentEntrySchema]))
  .min(1)
  .max(50);

export function environments(vars: Vars): string[] {
  const entries = jsonVar(vars, "SPONSON_ENVIRONMENTS", environmentsSchema) ?? DEFAULT_ENVIRONMENTS;
  return [...new Set(entries.map((e) => (typeof e === "string" ? e : e.name)))];
}

/** Each listed environment's settings (an entry given as a bare name has none). */
export function environmentSettings(vars: Vars): Record<string, EnvironmentSettings> {
  const entries = jsonVar(vars, "SPONSON_ENVIRONMENTS", environmentsSchema) ?? [];
  const settings: Record<string, EnvironmentSettings> = {};
  for (const e of entries) {
    if (typeof e === "string") continue;
    const { name, ...rest } = e;
    settings[name] = rest;
  }
  return settings;
}

/**
 * `enforced` by the document when SPONSON_POLICY is set. Unset: every write is denied (fail closed),
 * except with EMULATORS=on (tests, `npm start`), where the emulated providers are all there is to
 * write to and every write is allowed — honoured only by the dev entry's emulator transport
 * (workers/wiring/wire.ts, `policyForTransport`); the production entry refuses every write instead.
 */
export function writePolicy(vars: Vars): PolicyConfig {
  const document = jsonVar(vars, "SPONSON_POLICY", policySchema);
  if (document) return { mode: "enforced", document };
  if (vars.EMULATORS === "on") return { mode: "open-dev" };
  return { mode: "enforced", document: { version: 1, environments: {} } };
}

export const combiningSchema = z.record(
  z.string().refine(isValidEnvironment, "not a valid environment name"),
  z.boolean(),
);

/**
 * SPONSON_WRITE_COMBINING: `{ "<environment>": false }` turns write combining off there. On
 * everywhere else (the default).
 */
export function writeCombining(vars: Vars): Record<string, boolean> {
  return jsonVar(vars, "SPONSON_WRITE_COMBINING", combiningSchema) ?? {};
}

export function connections(vars: Vars, providerTypes: ReadonlySet<string>): ConnectionsDocument {
  const document = jsonVar(vars, "SPONSON_CONNECTIONS", connectionsSchema) ?? {};
  for (const [name, connection] of Object.entries(document)) {
    if (!providerTypes.has(connection.type)) {
      throw misconfigured(`SPONSON_CONNECTIONS is not valid: ${name}: unknown type "${connection.type}"`);
    }
  }
  return document;
}

export { DEFAULT_LEASE_TTL_SECONDS, DEFAULT_WAIT_TIMEOUT_SECONDS };

/** SPONSON_PLATFORMS: the platform connections (docs/configuration.md, "Platform connections"). */
export function platforms(vars: Vars): PlatformConnection[] {
  return jsonVar(vars, "SPONSON_PLATFORMS", platformsConfigSchema) ?? [];
}
