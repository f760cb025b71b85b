/**
 * The service configured for two repositories, and the callers each one has: a viewer and a ci
 * service token bound to it, and a GitHub Actions pull-request job of it (OIDC). The owning
 * repository is the test configuration's own (Hello-World); the foreign one is `acme/other`.
 */
import { env } from "cloudflare:workers";
import type { RepositoryRef } from "../../shared/schemas/repository";
import { call, type TestApp, testApp } from "./app";
import { DEFAULT_REPOSITORY } from "./repositories";
import {
  githubIssuer,
  mintServiceToken,
  pullRequestClaims,
  TEST_AUDIENCE,
  type TestGithubIssuer,
} from "./tokens";

export const OWNING: RepositoryRef = DEFAULT_REPOSITORY;
export const FOREIGN: RepositoryRef = { name: "acme/other", id: 5252 };

/** The bindings of a service that acts for both repositories and accepts GitHub OIDC tokens. */
export function twoRepositoryEnv(extra: Record<string, unknown> = {}): typeof env {
  return {
    ...env,
    SPONSON_REPOSITORIES: JSON.stringify([OWNING, FOREIGN]),
    SPONSON_AUDIENCE: TEST_AUDIENCE,
    ...extra,
  } as typeof env;
}

/** The kinds of token a repository's caller may hold: the brief's "both CI token kinds" and a viewer. */
export const CALLER_KINDS = ["viewer", "ci", "github"] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

export interface TwoRepositories {
  app: TestApp;
  issuer: TestGithubIssuer;
  /** A token of `kind` for `repository`; a GitHub job is pull request `pr`'s (default 7). */
  token(repository: RepositoryRef, kind: CallerKind, pr?: number): Promise<string>;
  /** A request to the app under the two-repository bindings (`extra` merged into them). */
  send(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    extra?: Record<string, unknown>,
  ): Promise<Response>;
}

export async function twoRepositories(): Promise<TwoRepositories> {
  const issuer = await githubIssuer();
  const app = testApp({ auth: { fetch: issuer.fetch } });
  return {
    app,
    issuer,
    token(repository, kind, pr = 7) {
      if (kind === "github") return issuer.mint(pullRequestClaims(pr, repository));
      return mintServiceToken({
        role: kind,
        repository: repository.name,
        sub: `${kind}-${repository.name}`,
        ...(kind === "ci" ? { scopes: ["preview/*"] } : {}),
      });
    },
    send(method, path, token, body, extra = {}) {
      return call(app, method, path, body, { authorization: `Bearer ${token}` }, twoRepositoryEnv(extra));
    },
  };
}
