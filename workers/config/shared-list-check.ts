/**
 * The config report's word on lists several repositories write (docs/security.md, "Several
 * repositories"; docs/design.md, "A share of each list"). A repository makes scopes freely (a pull
 * request each), so a scope's share (`maxEntriesPerScope`) bounds nothing of what one repository
 * takes: only `maxEntriesPerRepository` keeps one repository from filling a list the others need.
 * A warning, once per connection shared by several repositories (`"*"` with two or more configured,
 * or naming two or more), naming its capped ops without a repository share. Whether connections of
 * different repositories reach one object is not knowable offline, so those are not judged here.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { ADAPTERS } from "../adapters";
import type { ConnectionsDocument } from "../connections/connection-schema";
import { limitsOf } from "../connections/list-limits";
import type { ConfigProblem } from "./config-report";

export function sharedListWarnings(
  repositories: readonly RepositoryConfig[],
  connections: ConnectionsDocument,
): ConfigProblem[] {
  return Object.entries(connections).flatMap(([name, connection]) => {
    const named = connection.repositories;
    const sharers = named === "*" ? repositories.length : (named?.length ?? 0);
    const adapter = ADAPTERS.find((a) => a.type === connection.type);
    if (sharers < 2 || adapter === undefined) return [];
    const unshared = adapter.ops
      .filter((op) => {
        if (!op.batch) return false;
        const limits = limitsOf(connection.capacity?.[op.name]);
        const capped = op.capacity !== undefined || limits.maxEntries !== undefined;
        return capped && limits.maxEntriesPerRepository === undefined;
      })
      .map((op) => op.name);
    if (unshared.length === 0) return [];
    const who = named === "*" ? `"*"` : named?.join(", ");
    return [
      {
        path: `SPONSON_CONNECTIONS.${name}.capacity`,
        message: `shared by ${sharers} repositories (${who}), and ${unshared.join(", ")} set no maxEntriesPerRepository: one repository's scopes can fill such a list (each new scope has its own maxEntriesPerScope) and the others' applies are refused LIST_FULL; set capacity.<op>.maxEntriesPerRepository so each repository's scopes together fit (e.g. the cap divided by ${sharers})`,
      },
    ];
  });
}
