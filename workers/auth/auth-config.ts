/**
 * Authentication settings from the Worker's vars and secrets (docs/design.md, "Security model"),
 * zod-validated at load. A present but invalid setting makes the Worker refuse requests (INTERNAL "auth
 * misconfigured") rather than run with a guess.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { parseRepositoriesVar } from "../repositories/configured";

export const DEFAULT_GITHUB_ISSUER = "https://token.actions.githubusercontent.com";
/** Service tokens name this service as issuer and audience. */
export const SERVICE_ISSUER = "sponson-edge";
export const SERVICE_AUDIENCE = "sponson-edge";

export interface AuthConfig {
  githubIssuer: string;
  /** Required for GitHub tokens: without it every GitHub token is refused (fail closed). */
  audience: string | null;
  /** SPONSON_REPOSITORIES, parsed by the one schema the webhook receiver uses too. */
  repositories: RepositoryConfig[];
  /** The private signing key (JWK JSON) and extra public keys (JWK or JWKS JSON), raw. */
  serviceSigningKey: string | null;
  servicePublicKeys: string | null;
}

const issuerSchema = z
  .url()
  .refine((u) => u.startsWith("https://"), "the issuer must be https")
  .transform((u) => u.replace(/\/+$/, ""));

function optionalString(value: unknown): string | null {
  return typeof value === "string" && value.trim().length > 0 ? value : null;
}

function misconfigured(what: string, issues?: unknown): never {
  console.error(`auth misconfigured: ${what}`, issues ?? "");
  throw new SponsonError("INTERNAL", "auth misconfigured");
}

let cached: { raw: string; config: AuthConfig } | undefined;

export function authConfigFromEnv(env: Record<string, unknown>): AuthConfig {
  const raw = JSON.stringify([
    env.GITHUB_OIDC_ISSUER,
    env.SPONSON_AUDIENCE,
    env.SPONSON_REPOSITORIES,
    env.SERVICE_SIGNING_KEY,
    env.SERVICE_PUBLIC_KEY,
  ]);
  if (cached?.raw === raw) return cached.config;

  const issuer = issuerSchema.safeParse(optionalString(env.GITHUB_OIDC_ISSUER) ?? DEFAULT_GITHUB_ISSUER);
  if (!issuer.success) misconfigured("GITHUB_OIDC_ISSUER", issuer.error.issues);

  const repositories = parseRepositoriesVar(env.SPONSON_REPOSITORIES);
  if (!repositories.ok) misconfigured(repositories.problem);

  const config: AuthConfig = {
    githubIssuer: issuer.data,
    audience: optionalString(env.SPONSON_AUDIENCE),
    repositories: repositories.value,
    serviceSigningKey: optionalString(env.SERVICE_SIGNING_KEY),
    servicePublicKeys: optionalString(env.SERVICE_PUBLIC_KEY),
  };
  cached = { raw, config };
  return config;
}
