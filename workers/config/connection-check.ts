/**
 * The config report's check of one connection (docs/deploy.md, "Check the configuration"): its
 * adapter exists, its config and secret fields are what the adapter needs, the Worker secrets it
 * names are set, a pinned privateKeyJwt kid is in the federation ring, its capacity is one the
 * provider documents, its budget is one the provider has. Names only, never a value.
 */
import { ADAPTERS } from "../adapters";
import { budgetInForce, budgetProblems } from "../connections/budget-check";
import { capacityProblems } from "../connections/capacity-check";
import { type ConnectionsDocument, isFederated } from "../connections/connection-schema";
import { repositoriesOf } from "./binding-check";
import type { ConfigProblem, ConnectionStatus } from "./config-report";
import { privateKeyJwtKidProblems } from "./federation-check";

type Vars = Readonly<Record<string, unknown>>;

const joinPath = (name: string, path: readonly PropertyKey[]) =>
  [name, ...path.map((p) => String(p))].join(".");

export interface ConnectionCheck {
  /** Whether the secrets can be seen at all (config check without an env file or names: no). */
  secretsKnown: boolean;
  /** Whether FEDERATION_SIGNING_KEY's value can be read (not only its name). */
  federationKeyReadable: boolean;
  /** The issuer or its key is wrong: every federated connection's exchanges fail. */
  issuerBroken: boolean;
}

export function checkConnection(
  name: string,
  connection: ConnectionsDocument[string],
  vars: Vars,
  check: ConnectionCheck,
): { status: ConnectionStatus; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const base = `SPONSON_CONNECTIONS.${name}`;
  const missingSecrets = check.secretsKnown
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
  if (check.federationKeyReadable)
    problems.push(...privateKeyJwtKidProblems(name, connection, vars.FEDERATION_SIGNING_KEY));
  if (adapter) {
    for (const { op, message } of capacityProblems(connection.capacity, adapter))
      problems.push({ path: `${base}.capacity.${op}`, message });
    for (const message of budgetProblems(connection.budget, adapter, ADAPTERS))
      problems.push({ path: `${base}.budget`, message });
  }
  const budget = adapter ? budgetInForce(connection.budget, adapter) : undefined;
  return {
    status: {
      name,
      type: connection.type,
      environments: connection.environments,
      repositories: repositoriesOf(connection),
      missingSecrets,
      ...(budget ? { budget } : {}),
      valid: problems.length === 0 && !(isFederated(connection) && check.issuerBroken),
    },
    problems,
  };
}
