/**
 * What the GitHub REST emulator keeps (one object for api.github.com). Storage keys:
 *   token:<token>                   → GitHubToken (who it is, which repositories it can see)
 *   repo:<owner/name, lowercase>    → GitHubRepository
 *   pull:<owner/name, lowercase>:<n> → GitHubPull
 * Only what `sponson adopt` asks is modelled: a repository, and its pull requests' state and head.
 */

export interface GitHubToken {
  /** The user (or app) the token acts as. */
  login: string;
  /** Repositories (`owner/name`) the token can read; `*`: every one the emulator knows. */
  repositories: string[] | "*";
  /** Requests left in the hour (x-ratelimit-remaining); absent: 5000. At 0 GitHub answers 403. */
  remaining?: number;
}

export interface GitHubRepository {
  id: number;
  full_name: string;
  private: boolean;
  default_branch: string;
}

/** A pull request as the emulator keeps it; the API's view adds GitHub's other fields. */
export interface GitHubPull {
  number: number;
  state: "open" | "closed";
  title: string;
  /** The head branch (`head.ref`). */
  head: string;
  base: string;
  merged: boolean;
  draft: boolean;
  /** ISO 8601, as GitHub writes them. */
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  user: string;
}

export const githubKeys = {
  token: (token: string) => `token:${token}`,
  repo: (fullName: string) => `repo:${fullName.toLowerCase()}`,
  pull: (fullName: string, n: number) => `pull:${fullName.toLowerCase()}:${n}`,
  pullsOf: (fullName: string) => `pull:${fullName.toLowerCase()}:`,
} as const;

/** A pull request from a partial seed: open, on a branch named after it, made a day ago. */
export function pullRecord(n: number, seed: Partial<GitHubPull> = {}): GitHubPull {
  const at = "2026-11-30T12:00:00Z";
  const state = seed.state ?? "open";
  return {
    number: n,
    state,
    title: `Pull request ${n}`,
    head: `feature-${n}`,
    base: "main",
    merged: false,
    draft: false,
    created_at: at,
    updated_at: at,
    closed_at: state === "closed" ? at : null,
    user: "octocat",
    ...seed,
  };
}
