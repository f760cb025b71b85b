/**
 * Mints the tokens the service accepts (docs/design.md, "Security model"), with keys made for tests: service
 * tokens signed with an Ed25519 key (by default the SERVICE_SIGNING_KEY binding vitest.config.ts
 * generates per run) and GitHub-Actions-shaped OIDC tokens signed by a local RSA "issuer" whose
 * JWKS is served through an injected fetch (there is no network in tests).
 */
import { env } from "cloudflare:workers";
import {
  calculateJwkThumbprint,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import type { Role } from "../../workers/auth/caller";

export const GITHUB_ISSUER = "https://token.actions.githubusercontent.com";
export const TEST_AUDIENCE = "https://sponson.test";
export const TEST_REPOSITORY = { name: "acme/web", id: 4242 } as const;

// ---- service tokens ----

export interface ServiceTokenOptions {
  role: Role;
  scopes?: string[];
  sub?: string;
  /** Seconds from now; negative for an expired token. Default 300. */
  ttlSeconds?: number;
  /** Seconds from now for `nbf`; absent means no nbf claim. */
  notBeforeSeconds?: number;
  /** Private Ed25519 JWK as JSON; default the SERVICE_SIGNING_KEY binding. */
  signingKey?: string;
  issuer?: string;
  audience?: string;
  /** `owner/name`: binds a ci token to one repository. */
  repository?: string;
  /** The token id an admin can revoke it by. */
  jti?: string;
}

/** A fresh Ed25519 key pair as the JSON the SERVICE_SIGNING_KEY secret holds. */
export async function newServiceSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  return JSON.stringify(await exportJWK(privateKey));
}

function configuredSigningKey(): string {
  const key = env.SERVICE_SIGNING_KEY;
  if (typeof key !== "string") throw new Error("SERVICE_SIGNING_KEY binding missing (vitest.config.ts)");
  return key;
}

export async function mintServiceToken(options: ServiceTokenOptions): Promise<string> {
  const jwk = JSON.parse(options.signingKey ?? configuredSigningKey()) as JWK;
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as JWK);
  const now = Math.floor(Date.now() / 1000);
  const claims: JWTPayload = { role: options.role };
  if (options.scopes) claims.scopes = options.scopes;
  if (options.repository) claims.repository = options.repository;
  if (options.jti) claims.jti = options.jti;
  if (options.notBeforeSeconds !== undefined) claims.nbf = now + options.notBeforeSeconds;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
    .setIssuer(options.issuer ?? "sponson-edge")
    .setAudience(options.audience ?? "sponson-edge")
    .setSubject(options.sub ?? `test-${options.role}`)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.ttlSeconds ?? 300))
    .sign(await importJWK(jwk, "EdDSA"));
}

/** `{ authorization: "Bearer …" }` for a service token signed with the configured test key. */
export async function bearer(role: Role, scopes?: string[]): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await mintServiceToken({ role, ...(scopes ? { scopes } : {}) })}` };
}

// ---- GitHub Actions OIDC ----

export interface GithubTokenOptions {
  kid?: string;
  issuer?: string;
  audience?: string;
  ttlSeconds?: number;
  notBeforeSeconds?: number;
}

export interface TestGithubIssuer {
  issuer: string;
  publicJwk: JWK;
  /** The public key as PEM, for the "HMAC with the public key" attack. */
  publicPem: string;
  /** Serves `<issuer>/.well-known/jwks` like GitHub does; anything else is a 404. */
  fetch: typeof fetch;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  mint(claims: Partial<GithubTokenClaims>, options?: GithubTokenOptions): Promise<string>;
}

export interface GithubTokenClaims {
  sub: string;
  repository: string;
  repository_id: string;
  repository_owner: string;
  repository_owner_id: string;
  ref: string;
  ref_type: string;
  event_name: string;
  head_ref: string;
  base_ref: string;
  job_workflow_ref: string;
  workflow: string;
  actor: string;
  run_id: string;
  sha: string;
  [claim: string]: unknown;
}

export async function githubIssuer(issuer = GITHUB_ISSUER): Promise<TestGithubIssuer> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  const publicJwk: JWK = { ...exported, kid, alg: "RS256", use: "sig" };
  let fetches = 0;
  const serve = async (input: RequestInfo | URL): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url !== `${issuer}/.well-known/jwks`) return new Response("not found", { status: 404 });
    fetches += 1;
    return Response.json({ keys: [publicJwk] });
  };
  return {
    issuer,
    publicJwk,
    publicPem: await exportSPKI(publicKey),
    fetch: serve as typeof fetch,
    fetches: () => fetches,
    async mint(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ ...claims, nbf: now + (options.notBeforeSeconds ?? -5) })
        .setProtectedHeader({ alg: "RS256", kid: options.kid ?? kid, typ: "JWT" })
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? TEST_AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + (options.ttlSeconds ?? 300))
        .sign(privateKey);
    },
  };
}

function repositoryClaims(repository: { name: string; id: number }) {
  const [owner = "acme"] = repository.name.split("/");
  return {
    repository: repository.name,
    repository_id: String(repository.id),
    repository_owner: owner,
    repository_owner_id: "77",
    workflow: "preview",
    job_workflow_ref: `${repository.name}/.github/workflows/preview.yml@refs/heads/main`,
    actor: "octocat",
    run_id: "9001",
    sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
  };
}

/** A `pull_request` job of PR `n` (GitHub signs the merge ref). */
export function pullRequestClaims(
  n: number,
  repository: { name: string; id: number } = TEST_REPOSITORY,
): GithubTokenClaims {
  return {
    ...repositoryClaims(repository),
    sub: `repo:${repository.name}:pull_request`,
    ref: `refs/pull/${n}/merge`,
    ref_type: "branch",
    event_name: "pull_request",
    head_ref: `feature-${n}`,
    base_ref: "main",
  };
}

/** A `push` job on `branch`. */
export function branchClaims(
  branch: string,
  repository: { name: string; id: number } = TEST_REPOSITORY,
): GithubTokenClaims {
  return {
    ...repositoryClaims(repository),
    sub: `repo:${repository.name}:ref:refs/heads/${branch}`,
    ref: `refs/heads/${branch}`,
    ref_type: "branch",
    event_name: "push",
    head_ref: "",
    base_ref: "",
  };
}
