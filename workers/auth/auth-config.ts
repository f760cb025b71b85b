/**
 * Authentication settings from the Worker's vars and secrets (docs/design.md, "Security model"),
 * read from the one config object (workers/config/). A present but invalid setting makes the Worker refuse
 * requests (500 INTERNAL naming the variable) rather than run with a guess.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { configFromEnv } from "../config/config";
import type { AccessConfig } from "./access-config";
import type { Role } from "./caller";

/** Service tokens name this service as issuer and audience. */
export const SERVICE_ISSUER = "sponson-edge";
export const SERVICE_AUDIENCE = "sponson-edge";

export interface AuthConfig {
  githubIssuer: string;
  /** Required for GitHub tokens: without it every GitHub token is refused (fail closed). */
  audience: string | null;
  /** SPONSON_REPOSITORIES, parsed by the one schema the webhook receiver uses too. */
  repositories: RepositoryConfig[];
  /** SPONSON_ENVIRONMENTS: where closed pull requests are destroyed, and so where their jobs may act. */
  destroyEnvironments: string[];
  /** The private signing key (JWK JSON) and extra public keys (JWK or JWKS JSON), raw. */
  serviceSigningKey: string | null;
  servicePublicKeys: string | null;
  /** SERVICE_TOKEN_MAX_LIFETIME_SECONDS with its defaults. */
  serviceTokenMaxLifetime: Record<Role, number>;
  /** SPONSON_ACCESS: the Access team whose assertions are accepted; null accepts none. */
  access: AccessConfig | null;
}

/** The authentication settings of the Worker's config (workers/config/): throws naming an invalid var. */
export function authConfigFromEnv(env: object): AuthConfig {
  const config = configFromEnv(env);
  return {
    githubIssuer: config.githubIssuer,
    audience: config.audience,
    repositories: config.repositories,
    // Read when a GitHub token needs it: a service token (e.g. an admin reading
    // /v1/config/status of a broken configuration) never depends on it.
    get destroyEnvironments() {
      return config.environments;
    },
    serviceSigningKey: config.serviceSigningKey,
    servicePublicKeys: config.servicePublicKeys,
    serviceTokenMaxLifetime: config.serviceTokenMaxLifetime,
    // Read only for a token no other issuer claims: an invalid SPONSON_ACCESS never blocks the others.
    get access() {
      return config.access;
    },
  };
}
