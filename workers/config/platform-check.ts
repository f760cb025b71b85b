/**
 * The config report's checks of SPONSON_PLATFORMS beyond its schema (docs/configuration.md,
 * "Platform connections"). Pure, names only, never a value.
 *
 * - A platform connection is bound to one repository of SPONSON_REPOSITORIES: another would make
 *   every event of its project a configuration error.
 * - Its environment must be one a close destroys in (SPONSON_ENVIRONMENTS): what a deploy
 *   registers elsewhere would outlive its pull request for good.
 * - Its secrets must be set (when the secrets can be seen): without the webhook secret every event
 *   is refused; without Vercel's token none can be verified against the deployment's `gitSource`.
 * - Its plan's lines name connections of SPONSON_CONNECTIONS allowed in that environment and bound
 *   to that repository, as an apply would require.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { bindingOf } from "../connections/binding";
import type { ConnectionsDocument } from "../connections/connection-schema";
import type { PlatformConnection } from "../platforms/platform-schema";
import type { ConfigProblem } from "./config-report";

type Vars = Readonly<Record<string, unknown>>;

export interface PlatformStatus {
  name: string;
  platform: PlatformConnection["platform"];
  /** The Vercel project id or the Netlify site id. */
  target: string;
  repository: string;
  environment: string;
  url: PlatformConnection["url"];
  /** Worker secrets it names that are not set. */
  missingSecrets: string[];
  valid: boolean;
}

export interface PlatformContext {
  repositories: readonly RepositoryConfig[];
  /** SPONSON_ENVIRONMENTS' names, or null when they cannot be known (invalid, by name only). */
  destroyEnvironments: readonly string[] | null;
  connections: ConnectionsDocument;
  vars: Vars;
  secretsKnown: boolean;
}

const set = (vars: Vars, name: string) => typeof vars[name] === "string" && vars[name] !== "";

export function platformChecks(
  platforms: readonly PlatformConnection[],
  context: PlatformContext,
): { statuses: PlatformStatus[]; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const statuses = platforms.map((platform, i) => {
    const before = problems.length;
    const at = (field: string) => `SPONSON_PLATFORMS.${i}.${field}`;
    const { name, repository, environment } = platform;
    const bound = context.repositories.find((r) => r.name.toLowerCase() === repository.toLowerCase());
    if (bound === undefined)
      problems.push({
        path: at("repository"),
        message: `${name}: repository ${repository} is not in SPONSON_REPOSITORIES; every event of this ${platform.platform === "vercel" ? "project" : "site"} is refused`,
      });
    if (context.destroyEnvironments !== null && !context.destroyEnvironments.includes(environment))
      problems.push({
        path: at("environment"),
        message: `${name}: environment ${environment} is not in SPONSON_ENVIRONMENTS, so a pull request's close would never destroy what its deploys register there`,
      });
    const secrets = [platform.webhookSecret, ...(platform.platform === "vercel" ? [platform.apiToken] : [])];
    const missingSecrets = context.secretsKnown ? secrets.filter((s) => !set(context.vars, s)) : [];
    for (const secret of missingSecrets)
      problems.push({
        path: at(secret === platform.webhookSecret ? "webhookSecret" : "apiToken"),
        message: `${name}: Worker secret ${secret} is not set (wrangler secret put ${secret}); every event of this connection is refused`,
      });
    problems.push(...planProblems(platform, i, context));
    return {
      name,
      platform: platform.platform,
      target: platform.platform === "vercel" ? platform.project : platform.site,
      repository,
      environment,
      url: platform.url,
      missingSecrets,
      valid: problems.length === before,
    };
  });
  return { statuses, problems };
}

/** Each line of the plan as an apply would admit its connection (docs/design.md, "Plans and connections"). */
function planProblems(platform: PlatformConnection, i: number, context: PlatformContext): ConfigProblem[] {
  return platform.plan.lines.flatMap((line, j) => {
    const path = `SPONSON_PLATFORMS.${i}.plan.lines.${j}.connection`;
    const connection = context.connections[line.connection];
    if (connection === undefined)
      return [
        { path, message: `${platform.name}: connection ${line.connection} is not in SPONSON_CONNECTIONS` },
      ];
    if (!connection.environments.includes(platform.environment))
      return [
        {
          path,
          message: `${platform.name}: connection ${line.connection} is not allowed in environment ${platform.environment}`,
        },
      ];
    const binding = bindingOf(connection.repositories, platform.repository, context.repositories.length);
    if (!binding.bound)
      return [
        {
          path,
          message: `${platform.name}: connection ${line.connection} does not take writes from ${platform.repository}`,
        },
      ];
    return [];
  });
}
