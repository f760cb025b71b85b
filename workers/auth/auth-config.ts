/**
 * Authentication settings from the Worker's vars and secrets (DESIGN §7), zod-validated at load.
 * A present but invalid setting makes the Worker refuse requests (INTERNAL "auth misconfigured")
 * rather than run with a guess.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";

export const DEFAULT_GITHUB_ISSUER = "https://token.actions.githubusercontent.com";
/** Service tokens name this service as issuer and audience. */
export const SERVICE_ISSUER = "sponson-edge";
export const SERVICE_AUDIENCE = "sponson-edge";

export const repositorySchema = z.object({
  /** `owner/name`, compared case-insensitively (GitHub names are). */
  name: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/),
  /** The numeric repository id: a repository deleted and re-created under the same name has a new one. */
  id: z.number().int().positive(),
  /** The branch whose tokens may act on scope `main`. */
  defaultBranch: z.string().min(1).max(200).default("main"),
  /** Environments this repository's tokens may act in; absent means any. */
  environments: z.array(z.string().min(1)).optional(),
});
export type RepositoryConfig = z.infer<typeof repositorySchema>;

export interface AuthConfig {
  githubIssuer: string;
  /** Required for GitHub tokens: without it every GitHub token is refused (fail closed). */
  audience: string | null;
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

  let repositories: RepositoryConfig[] = [];
  const reposRaw = env.SPONSON_REPOSITORIES;
  if (reposRaw !== undefined && reposRaw !== null && reposRaw !== "") {
    // wrangler passes vars as JSON strings, or as values when declared as TOML/JSON structures.
    let json: unknown = reposRaw;
    if (typeof reposRaw === "string") {
      try {
        json = JSON.parse(reposRaw);
      } catch {
        misconfigured("SPONSON_REPOSITORIES is not JSON");
      }
    }
    const parsed = z.array(repositorySchema).max(500).safeParse(json);
    if (!parsed.success) misconfigured("SPONSON_REPOSITORIES", parsed.error.issues);
    repositories = parsed.data;
  }

  const config: AuthConfig = {
    githubIssuer: issuer.data,
    audience: optionalString(env.SPONSON_AUDIENCE),
    repositories,
    serviceSigningKey: optionalString(env.SERVICE_SIGNING_KEY),
    servicePublicKeys: optionalString(env.SERVICE_PUBLIC_KEY),
  };
  cached = { raw, config };
  return config;
}
