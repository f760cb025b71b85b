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
import { SERVICE_KEY_RING } from "../auth/service-keys";
import type { BudgetInForce } from "../connections/budget-check";
import { type ConnectionsDocument, isFederated } from "../connections/connection-schema";
import { signingSecretProblem } from "../keys/key-ring";
import type { PlatformConnection } from "../platforms/platform-schema";
import type { PolicyDocument } from "../policy/policy-schema";
import { bindingChecks } from "./binding-check";
import { DEFAULT_ENVIRONMENTS, environments, issuerSchema } from "./config-vars";
import { checkConnection } from "./connection-check";
import { issuerProblems } from "./federation-check";
import { JSON_VAR_NAMES, JSON_VARS } from "./json-vars";
import { OPERATOR_VARS, operatorVarProblems } from "./operator-vars-check";
import { type PlatformStatus, platformChecks } from "./platform-check";
import { pullRequestEnvironmentWarnings, webhookSecretProblems } from "./repository-check";
import { sameAccountFindings } from "./same-account-check";
import { sharedListWarnings } from "./shared-list-check";
import { sharedWebhookSecretNeeded, sharedWebhookSecretProblems } from "./shared-webhook-secret-check";

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
  /** The repositories that may write through it: names, `["*"]` (shared on purpose), or none named. */
  repositories: string[];
  /** Worker secrets the connection names that are not set. */
  missingSecrets: string[];
  /** The provider tenant's budget in force (docs/design.md, "Write budgets"); absent: none documented. */
  budget?: BudgetInForce;
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
  /** The platform connections (SPONSON_PLATFORMS): Vercel projects and Netlify sites. */
  platforms: PlatformStatus[];
  /** Every environment that opts out of a URL shape rule; every rule holds everywhere else. */
  urlCheckOptOuts: UrlCheckOptOut[];
  problems: ConfigProblem[];
  /** Valid but probably unintended (docs/deploy.md, "Check the configuration"); `valid` ignores them. */
  warnings: ConfigProblem[];
}

export interface CheckOptions {
  /**
   * Whether Worker secrets can be seen in `vars`. The service sees its own; `config check` without
   * an env file or a list of names cannot, and then reports nothing about secret presence.
   */
  secretsKnown: boolean;
  /**
   * Names known to be set whose values are not in `vars` (`config check --secret-names`: the names
   * `wrangler secret list` prints; an env file's placeholder): each counts as set, and its content
   * (a key's shape, a JSON var kept as a secret) is not judged.
   */
  namesOnly?: ReadonlySet<string>;
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
  const warnings: ConfigProblem[] = [];
  const statuses: VarStatus[] = [];
  const note = (name: string, before: number) =>
    statuses.push({ name, set: !unset(vars[name]), valid: problems.length === before });
  /** Set, but only its name is known: its content is not judged. */
  const byName = (name: string) => options.namesOnly?.has(name) === true && !unset(vars[name]);
  /** A var (not a key) known by name only: said once, since nothing else is said of it. */
  const unjudged = (name: string) => {
    if (!byName(name)) return false;
    warnings.push({
      path: name,
      message:
        "set as a Worker secret, known by name only: its content is not checked here (GET /v1/config/status checks it once deployed)",
    });
    return true;
  };

  for (const name of SECONDS_VARS) {
    const before = problems.length;
    const raw = vars[name];
    if (!unset(raw) && !unjudged(name)) {
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
    if (!unset(raw) && !unjudged("GITHUB_OIDC_ISSUER") && !issuerSchema.safeParse(raw).success)
      problems.push({ path: "GITHUB_OIDC_ISSUER", message: "must be an https URL" });
    note("GITHUB_OIDC_ISSUER", before);
  }

  {
    const before = problems.length;
    const raw = vars.SPONSON_AUDIENCE;
    if (unset(raw)) problems.push({ path: "SPONSON_AUDIENCE", message: REQUIRED.SPONSON_AUDIENCE as string });
    else if (unjudged("SPONSON_AUDIENCE")) {
      // Known by name only.
    } else if (typeof raw !== "string" || raw.trim() === "")
      problems.push({ path: "SPONSON_AUDIENCE", message: "must be a non-empty string" });
    note("SPONSON_AUDIENCE", before);
  }

  let connections: ConnectionsDocument = {};
  let policy: PolicyDocument | null = null;
  let repositories: RepositoryConfig[] = [];
  let platforms: PlatformConnection[] = [];
  let destroyEnvironments: string[] | null = [...DEFAULT_ENVIRONMENTS];
  for (const name of JSON_VAR_NAMES) {
    const before = problems.length;
    const raw = vars[name];
    if (unset(raw)) {
      const required = REQUIRED[name];
      const openDev = name === "SPONSON_POLICY" && vars.EMULATORS === "on";
      if (required && !openDev) problems.push({ path: name, message: required });
    } else if (unjudged(name)) {
      // Which environments a close destroys in is then unknown: no warning built on a guess.
      if (name === "SPONSON_ENVIRONMENTS") destroyEnvironments = null;
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
        else if (name === "SPONSON_PLATFORMS") platforms = parsed.data as PlatformConnection[];
        // An entry may be `{ name, staleAfterDays }`: names through the config's own accessor.
        else if (name === "SPONSON_ENVIRONMENTS") destroyEnvironments = environments(vars);
      }
    }
    note(name, before);
  }

  for (const [name, message] of Object.entries(REQUIRED_SECRETS)) {
    const before = problems.length;
    const raw = vars[name];
    // Every configured repository signing with a secret of its own leaves the shared one unused.
    const needed = name !== "GITHUB_WEBHOOK_SECRET" || sharedWebhookSecretNeeded(repositories);
    if (options.secretsKnown && unset(raw) && needed) problems.push({ path: name, message });
    if (name === "SERVICE_SIGNING_KEY" && !unset(raw) && !byName(name)) {
      const problem = signingSecretProblem(String(raw), SERVICE_KEY_RING);
      if (problem !== null)
        problems.push({ path: name, message: `${problem}; \`npm run keygen\` makes one` });
    }
    note(name, before);
  }

  // A notification setting known by name only is left out of the content checks.
  const operatorVars = Object.fromEntries(
    Object.entries(vars).filter(([name]) => !(OPERATOR_VARS.includes(name) && unjudged(name))),
  );
  const operatorProblems = operatorVarProblems(operatorVars, options.secretsKnown);
  problems.push(...operatorProblems);
  for (const name of OPERATOR_VARS)
    statuses.push({
      name,
      set: !unset(vars[name]),
      valid: !operatorProblems.some((p) => p.path.startsWith(name)),
    });

  problems.push(...webhookSecretProblems(repositories, vars, options.secretsKnown));
  problems.push(...sharedWebhookSecretProblems(repositories));
  // An invalid SPONSON_ENVIRONMENTS is a problem already: which scopes a close destroys is unknown.
  if (destroyEnvironments !== null)
    warnings.push(...pullRequestEnvironmentWarnings(repositories, destroyEnvironments));

  // The issuer and its key once, for every federated connection (docs/design.md, "Federated connections").
  const federated = Object.entries(connections)
    .filter(([, connection]) => isFederated(connection))
    .map(([name]) => name)
    .sort();
  const issuer = issuerProblems(federated, vars, {
    secretsKnown: options.secretsKnown,
    keyByNameOnly: byName("FEDERATION_SIGNING_KEY"),
  });
  problems.push(...issuer);
  const connectionStatuses = Object.entries(connections).map(([name, connection]) => {
    const checked = checkConnection(name, connection, vars, {
      secretsKnown: options.secretsKnown,
      federationKeyReadable: !byName("FEDERATION_SIGNING_KEY"),
      issuerBroken: issuer.length > 0,
    });
    problems.push(...checked.problems);
    return checked.status;
  });
  // Objects belong to repositories (docs/design.md): a connection that takes no writes is invalid.
  const binding = bindingChecks(repositories, connections);
  problems.push(...binding.problems);
  warnings.push(...binding.warnings);
  // One repository must not be able to fill a list the others write (docs/security.md, "Several repositories").
  warnings.push(...sharedListWarnings(repositories, connections));
  for (const status of connectionStatuses) if (binding.broken.has(status.name)) status.valid = false;
  const platform = platformChecks(platforms, {
    repositories,
    destroyEnvironments,
    connections,
    vars,
    secretsKnown: options.secretsKnown,
  });
  problems.push(...platform.problems);
  const sameAccount = sameAccountFindings(connections);
  problems.push(...sameAccount.problems);
  warnings.push(...sameAccount.warnings);
  return {
    valid: problems.length === 0,
    vars: statuses,
    connections: connectionStatuses,
    platforms: platform.statuses,
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
