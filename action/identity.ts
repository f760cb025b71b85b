/**
 * Who the comment token posts as, so that the Action edits only its own comment (docs/cli.md, "The
 * GitHub Action", "Whose comment is edited"). Asked in this order:
 *
 * 1. GraphQL `viewer { login databaseId }`: answers for user tokens (PATs, OAuth) and for GitHub App
 *    installation tokens, the job's GITHUB_TOKEN included (its bot: `github-actions[bot]`).
 * 2. REST `GET /user`: user tokens, where GraphQL is not reachable.
 * 3. Neither answered: the job's GITHUB_TOKEN is assumed, whose comments GitHub shows as written by
 *    `github-actions[bot]`, a user of type `Bot`. A token of another App whose identity cannot be
 *    read then finds no comment of its own and posts a new one each run — never edits another's.
 *
 * A comment matches by the author's numeric id when it is known (logins can be renamed; an App's
 * bot and a person may share a login but never an id), else by login and type.
 */
import type { Octokit } from "@octokit/rest";

export interface CommentAuthor {
  id?: number;
  login?: string;
  type?: string;
}

export type Identity = { id: number; login: string } | { login: string; type: "Bot" };

export const GITHUB_ACTIONS_BOT: Identity = { login: "github-actions[bot]", type: "Bot" };

export function isAuthoredBy(author: CommentAuthor | null | undefined, identity: Identity): boolean {
  if (!author) return false;
  if ("id" in identity) return author.id === identity.id;
  return author.login === identity.login && author.type === identity.type;
}

export async function resolveIdentity(octokit: Octokit): Promise<Identity> {
  try {
    const { viewer } = await octokit.graphql<{ viewer: { login: string; databaseId: number | null } }>(
      "query { viewer { login databaseId } }",
    );
    if (typeof viewer?.databaseId === "number") return { id: viewer.databaseId, login: viewer.login };
  } catch {
    // An installation token GraphQL refuses (older GitHub Enterprise Server): try REST.
  }
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    if (typeof data.id === "number") return { id: data.id, login: data.login };
  } catch {
    // "Resource not accessible by integration": an installation token, most likely the job's own.
  }
  return GITHUB_ACTIONS_BOT;
}
