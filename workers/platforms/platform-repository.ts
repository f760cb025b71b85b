/**
 * The one repository a platform connection is bound to (docs/design.md, "The platform door"), by
 * its configured name; a connection naming a repository that is not configured is the operator's
 * mistake (500, config check names it), said only once the event's signature checked out.
 */
import { SponsonError } from "../../shared/errors";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { configFromEnv } from "../config/config";
import type { PlatformConnection } from "./platform-schema";

export function boundRepository(env: object, connection: PlatformConnection): RepositoryConfig {
  const wanted = connection.repository.toLowerCase();
  const found = configFromEnv(env).repositories.find((r) => r.name.toLowerCase() === wanted);
  if (found !== undefined) return found;
  console.error(
    `platform connection ${connection.name}: ${connection.repository} is not in SPONSON_REPOSITORIES`,
  );
  throw new SponsonError(
    "INTERNAL",
    `platform connection ${connection.name} is bound to a repository that is not configured`,
  );
}
