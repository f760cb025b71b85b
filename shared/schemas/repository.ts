/**
 * Repositories the service acts for (`SPONSON_REPOSITORIES`) and the reference every scope carries.
 * One schema for the whole service: the webhook receiver, authentication and the scope endpoints
 * read the same list. A scope belongs to one repository by **id** (ids survive renames; names are
 * what people read), so `pr-5` of two repositories are two scopes.
 */
import { z } from "zod";
import { webhookSecretNameSchema } from "./secret-name";

/** `owner/name` as GitHub spells it; compared case-insensitively (GitHub names are). */
export const repositoryNamePattern = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
export const repositoryNameSchema = z
  .string()
  .regex(repositoryNamePattern, "a repository is named owner/name, e.g. acme/web");

/** GitHub's numeric repository id; also the first segment of every scope's storage keys. */
export const repositoryIdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** What a scope, a receipt, a lock card or a queued destroy says about its repository. */
export const repositoryRefSchema = z.object({ id: repositoryIdSchema, name: z.string().min(1).max(201) });
export type RepositoryRef = z.infer<typeof repositoryRefSchema>;

export const repositoryConfigSchema = z.object({
  name: repositoryNameSchema,
  /** A repository deleted and re-created under the same name has a new id. */
  id: repositoryIdSchema,
  /** The branch whose tokens may act on scope `main`. */
  defaultBranch: z.string().min(1).max(200).default("main"),
  /** Environments this repository's tokens may act in, whatever their ref; absent means any. */
  environments: z.array(z.string().min(1)).optional(),
  /**
   * Environments per kind of signed ref (workers/auth/ref-environments.ts). `pullRequest` defaults
   * to SPONSON_ENVIRONMENTS (where closed pull requests are destroyed); `branch` to no environment
   * (fails closed); `defaultBranch` to `environments`.
   */
  refEnvironments: z
    .strictObject({
      pullRequest: z.array(z.string().min(1)).max(50).optional(),
      branch: z.array(z.string().min(1)).max(50).optional(),
      defaultBranch: z.array(z.string().min(1)).max(50).optional(),
    })
    .optional(),
  /**
   * `{ "<sponson environment>": "<GitHub deployment environment>" }`: a GitHub job acts in that
   * environment only when its token carries that `environment` claim, i.e. the job ran in the GitHub
   * deployment environment, behind its protection rules (required reviewers, branch rules).
   */
  deploymentEnvironments: z.record(z.string().min(1), z.string().min(1).max(255)).optional(),
  /**
   * `{ "<sponson environment>": "<pattern>" }`: a GitHub job acts in that environment only when its
   * token's `job_workflow_ref` (which workflow file, at which ref, minted it) matches the pattern;
   * `*` matches any run of characters, e.g. `acme/web/.github/workflows/deploy.yml@refs/heads/main`
   * or `acme/web/.github/workflows/deploy.yml@*`.
   */
  jobWorkflowRef: z.record(z.string().min(1), z.string().min(1).max(500)).optional(),
  /**
   * The name of the Worker secret this repository's webhook deliveries are signed with; absent:
   * GITHUB_WEBHOOK_SECRET (workers/webhooks/delivery-secret.ts). Never one of the service's own keys.
   */
  webhookSecret: webhookSecretNameSchema.optional(),
});
export type RepositoryConfig = z.infer<typeof repositoryConfigSchema>;

/** The whole `SPONSON_REPOSITORIES` value: ids and names are each unique. */
export const repositoriesConfigSchema = z
  .array(repositoryConfigSchema)
  .max(500)
  .refine((repos) => new Set(repos.map((r) => r.id)).size === repos.length, "repository ids must be unique")
  .refine(
    (repos) => new Set(repos.map((r) => r.name.toLowerCase())).size === repos.length,
    "repository names must be unique",
  );

export function repositoryRef(repository: RepositoryRef): RepositoryRef {
  return { id: repository.id, name: repository.name };
}

/** The configured name for an id, or `#<id>` for a repository no longer configured. */
export function repositoryRefById(id: number, repositories: readonly RepositoryRef[]): RepositoryRef {
  const found = repositories.find((r) => r.id === id);
  return { id, name: found?.name ?? `#${id}` };
}

export function sameRepositoryName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
