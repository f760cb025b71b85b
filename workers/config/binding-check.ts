/**
 * The config report's checks of which repositories write through each connection (docs/design.md,
 * "Objects belong to repositories"; docs/deploy.md, "Check the configuration"). Names only.
 *
 * - With several repositories configured, a connection that names none takes no writes: a problem
 *   (every plan line through it is refused CONNECTION_NOT_BOUND).
 * - A connection naming a repository SPONSON_REPOSITORIES does not list: a problem (a typo leaves
 *   the repository it meant refused).
 * - Two connections of one provider type bound to different repositories, one of them naming no
 *   `parents`: a warning. If both reach one tenant, its repositories can write the other's objects
 *   through it; whether they do is not knowable offline.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import type { Connection, ConnectionsDocument } from "../connections/connection-schema";
import type { ConfigProblem } from "./config-report";

export interface BindingReport {
  problems: ConfigProblem[];
  warnings: ConfigProblem[];
  /** Connections that take no writes from some repository they were probably meant for. */
  broken: Set<string>;
}

/** `["*"]`, the names, or `[]` for a connection that names none: what the status lists. */
export function repositoriesOf(connection: Connection): string[] {
  const named = connection.repositories;
  return named === undefined ? [] : named === "*" ? ["*"] : [...named];
}

export function bindingChecks(
  repositories: readonly RepositoryConfig[],
  connections: ConnectionsDocument,
): BindingReport {
  const report: BindingReport = { problems: [], warnings: [], broken: new Set() };
  const configured = repositories.map((r) => r.name);
  const known = new Set(configured.map((n) => n.toLowerCase()));
  for (const [name, connection] of Object.entries(connections)) {
    const path = `SPONSON_CONNECTIONS.${name}.repositories`;
    const named = connection.repositories;
    if (named === undefined && configured.length > 1) {
      report.broken.add(name);
      report.problems.push({
        path,
        message: `names no repository, and ${configured.length} are configured (${configured.join(", ")}): it takes no writes until it names the repositories that may write through it (["owner/name", …], or "*" to share it on purpose)`,
      });
    }
    if (Array.isArray(named) && configured.length > 0)
      named.forEach((repository, i) => {
        if (known.has(repository.toLowerCase())) return;
        report.broken.add(name);
        report.problems.push({
          path: `${path}.${i}`,
          message: `${repository} is not in SPONSON_REPOSITORIES (configured: ${configured.join(", ")})`,
        });
      });
  }
  report.warnings.push(...sharedTenantWarnings(connections));
  return report;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.some((y) => y.toLowerCase() === x.toLowerCase()));

function sharedTenantWarnings(connections: ConnectionsDocument): ConfigProblem[] {
  const bound = Object.entries(connections).filter(
    (e): e is [string, Connection & { repositories: string[] }] => Array.isArray(e[1].repositories),
  );
  return bound.flatMap(([name, connection]) => {
    if (connection.parents !== undefined) return [];
    const other = bound.find(
      ([n, c]) =>
        n !== name && c.type === connection.type && !sameSet(c.repositories, connection.repositories),
    );
    if (other === undefined) return [];
    const mine = connection.repositories.join(", ");
    return [
      {
        path: `SPONSON_CONNECTIONS.${name}.parents`,
        message: `bound to ${mine} and names no objects, while ${connection.type} connection "${other[0]}" is bound to ${other[1].repositories.join(", ")}: if both reach one tenant, ${mine} can write its objects through "${name}"; name this connection's objects in parents`,
      },
    ];
  });
}
