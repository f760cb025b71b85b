/**
 * The service's connections, from `SPONSON_CONNECTIONS` as the Worker's config (workers/config/) parsed it.
 * A run asks for a connection by the name a plan line (or a ledger entry) gives; the answer is
 * decided by configuration alone: which provider type, which settings, which Worker secrets, and
 * whether the run's environment may use it.
 */
import { SponsonError } from "../../shared/errors";
import type { BudgetRate } from "../../shared/rpc/budget-bucket";
import type { SecretRegistry } from "../../shared/secrets";
import { matchIdentity } from "../policy/glob";
import { type Binding, bindingOf } from "./binding";
import {
  type Connection,
  type ConnectionSettings,
  type ConnectionsDocument,
  connectionSettings,
  isFederated,
} from "./connection-schema";
import { type ListLimits, limitsOf } from "./list-limits";

export const CONNECTIONS_VAR = "SPONSON_CONNECTIONS";

export interface UsableConnection {
  name: string;
  type: string;
  /** Type and non-secret config: what `lockOn` reads. */
  settings: ConnectionSettings;
}

export class Connections {
  readonly #document: ConnectionsDocument;
  readonly #repositories: number;

  /** `repositories`: SPONSON_REPOSITORIES' names; with several, an unbound connection takes no writes. */
  constructor(document: ConnectionsDocument, repositories: readonly string[] = []) {
    this.#document = document;
    this.#repositories = repositories.length;
  }

  names(): string[] {
    return Object.keys(this.#document).sort();
  }

  #get(name: string): Connection | undefined {
    return Object.hasOwn(this.#document, name) ? this.#document[name] : undefined;
  }

  /**
   * The connection `name` for a run in `environment`: unknown is a bad request (400), a connection
   * the environment may not use is refused (403). Neither makes any outbound request.
   */
  use(name: string, environment: string, where: string): UsableConnection {
    const connection = this.#get(name);
    if (!connection) {
      const usable = this.names().filter((n) => this.#document[n]?.environments.includes(environment));
      throw new SponsonError(
        "VALIDATION",
        `${where}: unknown connection "${name}"; connections for ${environment}: ${usable.join(", ") || "none"}`,
      );
    }
    if (!connection.environments.includes(environment)) {
      throw new SponsonError(
        "FORBIDDEN",
        `${where}: connection "${name}" may not be used in environment "${environment}"`,
        { rule: "connection.environments", connection: name, environment },
      );
    }
    return { name, type: connection.type, settings: connectionSettings(connection) };
  }

  /**
   * Whether `repository` (owner/name) may write through `name` (docs/design.md, "Objects belong to
   * repositories"). Asked for writes only: a removal goes through the connection its entry names.
   */
  bindingOf(name: string, repository: string): Binding {
    return bindingOf(this.#get(name)?.repositories, repository, this.#repositories);
  }

  /**
   * Whether `name` may write into the object `identity`: any object when the connection names none
   * (the write policy decides), else one its `parents` patterns match. A line whose resources are
   * objects of their own (no identity) shares nothing with another repository.
   */
  writesObject(name: string, identity: string | null): boolean {
    const parents = this.#get(name)?.parents;
    return parents === undefined || identity === null || parents.some((p) => matchIdentity(p, identity));
  }

  /** The cap the operator set on `op`'s lists for `name` (docs/design.md, "Lists at their cap"). */
  capacityOf(name: string, op: string): number | undefined {
    return this.limitsOf(name, op).maxEntries;
  }

  /** Everything the operator set on `op`'s lists for `name`: the cap and the shares (list-limits.ts). */
  limitsOf(name: string, op: string): ListLimits {
    const capacity = this.#get(name)?.capacity;
    return limitsOf(capacity && Object.hasOwn(capacity, op) ? capacity[op] : undefined);
  }

  /** The budget the operator set for `name`'s provider tenant (docs/design.md, "Write budgets"). */
  budgetOf(name: string): BudgetRate | undefined {
    return this.#get(name)?.budget;
  }

  /** The environments that may use `name` (none when it is not configured). */
  environmentsOf(name: string): string[] {
    return this.#get(name)?.environments ?? [];
  }

  /**
   * The adapter config of `name`: its settings with each credential field filled from the Worker
   * secret the connection names, every value registered so it can never be stored or logged. No
   * other secret of the Worker is ever read here.
   */
  credentials(name: string, vars: Record<string, unknown>, secrets: SecretRegistry): Record<string, unknown> {
    const connection = this.#get(name);
    if (!connection) throw new SponsonError("INTERNAL", `connection "${name}" is not configured`);
    const out: Record<string, unknown> = connectionSettings(connection);
    for (const [field, secretName] of Object.entries(connection.secrets)) {
      const value = vars[secretName];
      if (typeof value !== "string" || value.length === 0) {
        throw new SponsonError(
          "INTERNAL",
          `connection "${name}": secret ${secretName} is not set on the service (wrangler secret put ${secretName})`,
        );
      }
      secrets.register(value);
      out[field] = value;
    }
    // Ids, not secrets: the adapter asks the issuer for tokens of this connection's subject.
    if (connection.federated) out.federated = { ...connection.federated };
    if (connection.privateKeyJwt) out.privateKeyJwt = { ...connection.privateKeyJwt };
    return out;
  }

  /** Whether `name` is configured to use the service's own tokens (never chosen by a plan). */
  federated(name: string): boolean {
    const connection = this.#get(name);
    return connection !== undefined && isFederated(connection);
  }

  /**
   * Ledger entries and intents written before connections carry the plan's provider block instead
   * of a connection name. Such an entry belongs to the one configured connection of the same type
   * whose every setting the block repeats; the block's own host and secret references are never
   * used. None or several: refused, naming what to configure. A federated connection is never the
   * match: such blocks always carried key material, and its config (an S3 region alone) would
   * otherwise match every block of its type (docs/design.md, "Federated connections").
   */
  legacyMatch(block: Record<string, unknown>): string {
    const type = block.type;
    const matches = this.names().filter((name) => {
      const connection = this.#document[name] as Connection;
      if (connection.type !== type || isFederated(connection)) return false;
      return Object.entries(connection.config).every(([field, value]) => block[field] === value);
    });
    if (matches.length === 1) return matches[0] as string;
    const settings = Object.entries(block)
      .filter(([, v]) => typeof v !== "object")
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(", ");
    throw new SponsonError(
      "VALIDATION",
      matches.length === 0
        ? `this entry was recorded before connections (${settings}); configure a ${String(type)} connection with these settings in ${CONNECTIONS_VAR} to remove it`
        : `this entry was recorded before connections (${settings}); connections ${matches.join(", ")} all match it — make their settings distinct`,
    );
  }
}
