/**
 * Which environments a GitHub job may act in, from what GitHub signed (docs/security.md, "Environments
 * bound to the ref"). Pure: the job's ref kind and its repository's configuration in, the allowed
 * environments out, with the setting that grants them, so a refusal can say how to change it.
 *
 * - A pull request's job runs code anyone who can open a pull request wrote: by default it acts only
 *   in the environments closed pull requests are destroyed in (`SPONSON_ENVIRONMENTS`), so whatever
 *   it creates is cleaned up and it never reaches a production connection.
 * - A non-default branch's job runs code anyone with push access to any branch wrote (a push, a
 *   dispatch, a created ref, a merge queue's branch, a deployment): it acts only where
 *   `refEnvironments.branch` grants it, and nowhere when that is unset (failing closed: a
 *   repository's `environments` bounds it but never grants it).
 * - The default branch's job (the branch named by the repository's `defaultBranch`, "main" unless
 *   set) acts where `refEnvironments.defaultBranch` grants it; unset, where the repository's
 *   `environments` list allows (any when that is unset), production included.
 * - A repository's `environments`, when set, bounds every ref kind.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";

export type RefKind = "pull-request" | "branch" | "default-branch" | "none";

export interface RefEnvironments {
  /** null: any environment. */
  allowed: string[] | null;
  /** The SPONSON_REPOSITORIES setting that decides it, for the refusal's message. */
  setting: string;
}

const SETTING: Record<Exclude<RefKind, "none">, keyof NonNullable<RepositoryConfig["refEnvironments"]>> = {
  "pull-request": "pullRequest",
  branch: "branch",
  "default-branch": "defaultBranch",
};

/** The kind of ref the job's scopes came from (github-claims.ts derived them). */
export function refKindOf(scopes: readonly string[]): RefKind {
  if (scopes.includes("main")) return "default-branch";
  if (scopes.some((s) => s.startsWith("pr-"))) return "pull-request";
  if (scopes.some((s) => s.startsWith("branch-"))) return "branch";
  return "none";
}

function intersect(a: string[] | null, b: readonly string[] | undefined): string[] | null {
  if (b === undefined) return a;
  return a === null ? [...b] : a.filter((e) => b.includes(e));
}

export function environmentsForRef(
  kind: RefKind,
  repository: RepositoryConfig,
  destroyEnvironments: readonly string[],
): RefEnvironments {
  if (kind === "none")
    return { allowed: [], setting: "no scope (the ref is neither a pull request nor a branch)" };
  const key = SETTING[kind];
  const granted = repository.refEnvironments?.[key];
  const setting = `SPONSON_REPOSITORIES[${repository.name}].refEnvironments.${key}`;
  if (granted !== undefined) return { allowed: intersect([...granted], repository.environments), setting };
  if (kind === "pull-request") {
    return {
      allowed: intersect([...destroyEnvironments], repository.environments),
      setting: `SPONSON_ENVIRONMENTS (or ${setting})`,
    };
  }
  if (kind === "branch") return { allowed: [], setting };
  return { allowed: intersect(null, repository.environments), setting };
}
