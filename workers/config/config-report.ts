/**
 * Every configuration problem at once, each with its path (docs/deploy.md, "Check the
 * configuration"): what `npx sponson config check` prints before a deploy and what the admin's
 * `GET /v1/config/status` answers after one. Pure: the vars in, a report out.
 *
 * The report names vars, connections, fields and Worker secrets, never a value: a secret is
 * "set" or "not set" (or not a key of the right shape), and messages come from the schemas, which
 * never echo input. The Worker itself reads the same vars through workers/config/config.ts.
 */

import type { RepositoryConfig } from "../../shared/schemas/repository";
import { URL_CHECK_RULES, type UrlCheckRule } from "../../shared/url-shape";
import { ADAPTERS } from "../adapters";
import { SERVICE_KEY_RING } from "../auth/service-keys";
import { capacityProblems } from "../connections/capacity-check";
import type { ConnectionsDocument } from "../connections/connection-schema";
import { signingSecretProblem } from "../keys/key-ring";
import type { PolicyDocument } from "../policy/policy-schema";
import { DEFAULT_ENVIRONMENTS, environments, issuerSchema } from "./config-vars";
import { federationProblems } from "./federation-check";
import { JSON_VAR_NAMES, JSON_VARS } from "./json-vars";
import { OPERATOR_VARS, operatorVarProblems } from "./operator-vars-check";
import { pullRequestEnvironmentWarnings, webhookSecretProblems } from "./repository-check";

export interface ConfigProblem {
  /** Where: a var, then the path inside its JSON, e.g. `SPONSON_POLICY.environments.preview.items.2`. */
  path: string;
  message: string;
}

export interface VarStatus {
  name: string;
  set: boolean;
  valid: boolean;
}

export interface ConnectionStatus {
  name: string;
  type: string;
  environments: string[];
  /** Worker secrets the connection names that are not set. */
  missingSecrets: string[];
  valid: boolean;
}

/** An environment that turns off rules of the URL shape check (SPONSON_POLICY's `urlChecks`). */
export interface UrlCheckOptOut {
  environment: string;
  rules: UrlCheckRule[];
}

export interface ConfigReport {
  valid: boolean;
  vars: VarStatus[];
  connections: ConnectionStatus[];
  /** Every environment that opts out of a URL shape rule; every rule holds everywhere else. */
  urlCheckOptOuts: UrlCheckOptOut[];
  problems: ConfigProblem[];
  /** Valid but probably unintended (docs/deploy.md, "Check the configuration"); `valid` ignores them. */
  warnings: ConfigProblem[];
}

export interface CheckOptions {
  /**
   * Whether Worker secrets can be seen in `vars`. The service sees its own; `config check` without
   * an env file cannot, and then reports nothing about secret presence.
   */
  secretsKnown: boolean;
}

type Vars = Readonly<Record<string, unknown>>;

const SECONDS_VARS = ["LEASE_TTL_SECONDS", "WAIT_TIMEOUT_SECONDS", "STREAM_KEEPALIVE_SECONDS"];

/** Needed for the service to do its job; each says what happens without it. */
const REQUIRED: Record<string, string> = {
  SPONSON_AUDIENCE: "not set: every GitHub OIDC token is refused",
  SPONSON_REPOSITORIES: "not set: the service acts for no repository",
  SPONSON_CONNECTIONS: "not set: plans can name no connection",
  SPONSON_POLICY: "not set: every write is refused (the policy fails closed)",
};
const REQUIRED_SECRETS: Record<string, string> = {
  SERVICE_SIGNING_KEY: "not set: no service token (dashboard, admin, ci) can be verified",
  GITHUB_WEBHOOK_SECRET:
    "not set: every GitHub webhook is refused, so closed pull requests keep their entries",
};

const unset = (value: unknown) => value === undefined || value === null || value === "";

function parseJson(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== "string") return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false };
  }
}

const joinPath = (name: string, path: readonly PropertyKey[]) =>
  [name, ...path.map((p) => String(p))].join(".");

export function checkConfig(vars: Vars, options: CheckOptions): ConfigReport {
  const problems: ConfigProblem[] = [];
  const statuses: VarStatus[] = [];
  const note = (name: string, before: number) =>
    statuses.push({ name, set: !unset(vars[name]), valid: problems.length === before });

  for (const name of SECONDS_VARS) {
    const before = problems.length;
    const raw = vars[name];
    if (!unset(raw)) {
      const n =
        typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
      if (!Number.isFinite(n) || n <= 0)
        problems.push({ path: name, message: "must be a positive number of seconds" });
    }
    note(name, before);
  }

  {
    const before = problems.length;
    const raw = vars.GITHUB_OIDC_ISSUER;
    if (!unset(raw) && !issuerSchema.safeParse(raw).success)
      problems.push({ path: "GITHUB_OIDC_ISSUER", message: "must be an https URL" });
    note("GITHUB_OIDC_ISSUER", before);
  }

  {
    const before = problems.length;
    const raw = vars.SPONSON_AUDIENCE;
    if (unset(raw)) problems.push({ path: "SPONSON_AUDIENCE", message: REQUIRED.SPONSON_AUDIENCE as string });
    else if (typeof raw !== "string" || raw.trim() === "")
      problems.push({ path: "SPONSON_AUDIENCE", message: "must be a non-empty string" });
    note("SPONSON_AUDIENCE", before);
  }

  let connections: ConnectionsDocument = {};
  let policy: PolicyDocument | null = null;
  let repositories: RepositoryConfig[] = [];
  let destroyEnvironments: string[] | null = [...DEFAULT_ENVIRONMENTS];
  for (const name of JSON_VAR_NAMES) {
    const before = problems.length;
    const raw = vars[name];
    if (unset(raw)) {
      const required = REQUIRED[name];
      const openDev = name === "SPONSON_POLICY" && vars.EMULATORS === "on";
      if (required && !openDev) problems.push({ path: name, message: required });
    } else {
      if (name === "SPONSON_ENVIRONMENTS") destroyEnvironments = null;
      const json = parseJson(raw);
      if (!json.ok) problems.push({ path: name, message: "is not JSON" });
      else {
        const parsed = JSON_VARS[name].safeParse(json.value);
        if (!parsed.success)
          for (const issue of parsed.error.issues)
            problems.push({ path: joinPath(name, issue.path), message: issue.message });
        else if (name === "SPONSON_CONNECTIONS") connections = parsed.data as ConnectionsDocument;
        else if (name === "SPONSON_POLICY") policy = parsed.data as PolicyDocument;
        else if (name === "SPONSON_REPOSITORIES") repositories = parsed.data as RepositoryConfig[];
        // An entry may be `{ name, staleAfterDays }`: names through the config's own accessor.
        else if (name === "SPONSON_ENVIRONMENTS") destroyEnvironments = environments(vars);
      }
    }
    note(name, before);
  }

  for (const [name, message] of Object.entries(REQUIRED_SECRETS)) {
    const before = problems.length;
    const raw = vars[name];
    if (options.secretsKnown && unset(raw)) problems.push({ path: name, message });
    if (name === "SERVICE_SIGNING_KEY" && !unset(raw)) {
      const problem = signingSecretProblem(String(raw), SERVICE_KEY_RING);
      if (problem !== null)
        problems.push({ path: name, message: `${problem}; \`npm run keygen\` makes one` });
    }
    note(name, before);
  }

  const operatorProblems = operatorVarProblems(vars, options.secretsKnown);
  problems.push(...operatorProblems);
  for (const name of OPERATOR_VARS)
    statuses.push({
      name,
      set: !unset(vars[name]),
      valid: !operatorProblems.some((p) => p.path.startsWith(name)),
    });

  problems.push(...webhookSecretProblems(repositories, vars, options.secretsKnown));
  // An invalid SPONSON_ENVIRONMENTS is a problem already: which scopes a close destroys is unknown.
  const warnings =
    destroyEnvironments === null ? [] : pullRequestEnvironmentWarnings(repositories, destroyEnvironments);

  const connectionStatuses = Object.entries(connections).map(([name, connection]) =>
    checkConnection(name, connection, vars, options, problems),
  );
  return {
    valid: problems.length === 0,
    vars: statuses,
    connections: connectionStatuses,
    urlCheckOptOuts: policy === null ? [] : urlCheckOptOuts(policy),
    problems,
    warnings,
  };
}

function urlCheckOptOuts(policy: PolicyDocument): UrlCheckOptOut[] {
  return Object.entries(policy.environments).flatMap(([environment, rules]) => {
    const off = URL_CHECK_RULES.filter((rule) => rules.urlChecks?.[rule] === false);
    return off.length === 0 ? [] : [{ environment, rules: off }];
  });
}

/** Its adapter exists, its config and secret fields are what the adapter needs, its secrets are set. */
function checkConnection(
  name: string,
  connection: ConnectionsDocument[string],
  vars: Vars,
  options: CheckOptions,
  problems: ConfigProblem[],
): ConnectionStatus {
  const before = problems.length;
  const base = `SPONSON_CONNECTIONS.${name}`;
  const missingSecrets = options.secretsKnown
    ? Object.values(connection.secrets).filter(
        (secret) => typeof vars[secret] !== "string" || vars[secret] === "",
      )
    : [];
  for (const secret of missingSecrets)
    problems.push({
      path: `${base}.secrets`,
      message: `Worker secret ${secret} is not set (wrangler secret put ${secret})`,
    });
  const adapter = ADAPTERS.find((a) => a.type === connection.type);
  if (adapter === undefined) {
    problems.push({
      path: `${base}.type`,
      message: `unknown provider type "${connection.type}"; known: ${ADAPTERS.map((a) => a.type).join(", ")}`,
    });
  } else {
    // The adapter's own schema, with a stand-in for each secret: checks fields, never values.
    const standIns = Object.fromEntries(Object.keys(connection.secrets).map((field) => [field, "stand-in"]));
    const keyless = {
      ...(connection.federated ? { federated: connection.federated } : {}),
      ...(connection.privateKeyJwt ? { privateKeyJwt: connection.privateKeyJwt } : {}),
    };
    const parsed = adapter.config.safeParse({
      type: connection.type,
      ...connection.config,
      ...standIns,
      ...keyless,
    });
    if (!parsed.success)
      for (const issue of parsed.error.issues) {
        // A secret's content is the provider's to judge: only its presence is checked here.
        if (String(issue.path[0] ?? "") in connection.secrets) continue;
        const missing = issue.code === "invalid_type" && issue.message.includes("received undefined");
        // `federated` and `privateKeyJwt` are the connection's own fields, not its config's.
        const own = issue.path[0] === "federated" || issue.path[0] === "privateKeyJwt";
        problems.push({
          path: joinPath(own ? base : `${base}.config`, issue.path),
          message: missing
            ? `${issue.message} (a config field, or a secrets field naming a Worker secret)`
            : issue.message,
        });
      }
  }
  problems.push(...federationProblems(name, connection, vars, options.secretsKnown));
  if (adapter)
    for (const { op, message } of capacityProblems(connection.capacity, adapter))
      problems.push({ path: `${base}.capacity.${op}`, message });
  return {
    name,
    type: connection.type,
    environments: connection.environments,
    missingSecrets,
    valid: problems.length === before,
  };
}
