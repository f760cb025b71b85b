/**
 * One pull-request comment per environment (docs/cli.md, "Results in the pull request"): created on
 * the first run, updated on every later one. It is found again by a hidden marker naming the
 * environment **and** by its author: anyone can start a comment with the marker, so only a comment
 * written by the identity this token posts as is ever edited (a commenter's is left alone and the
 * Action posts its own). Written with the job's own token (`pull-requests: write`), through
 * GITHUB_API_URL.
 */
import { Octokit } from "@octokit/rest";
import type { RunResult } from "../cli/client";
import { mdCode } from "../cli/markdown";
import { runSummary } from "../cli/step-summary";
import { type CommentAuthor, type Identity, isAuthoredBy, resolveIdentity } from "./identity";

/** The environment is percent-encoded: no value can close the HTML comment (`-->`). */
export const commentMarker = (environment: string) =>
  `<!-- sponson-edge: environment=${encodeURIComponent(environment)} -->`;

export function commentBody(result: RunResult, runUrl: string): string {
  return [
    commentMarker(result.run.environment),
    runSummary(result).trimEnd(),
    "",
    // The destination in <…>: a `)` in it cannot end the link early.
    `[Run ${mdCode(result.run.id)} on the dashboard](<${runUrl.replace(/[<>\s]/g, encodeURIComponent)}>)`,
    "",
  ].join("\n");
}

export interface CommentTarget {
  apiUrl: string;
  token: string;
  repository: string;
  issueNumber: number;
}

export interface CommentWritten {
  action: "created" | "updated";
  id: number;
  url: string;
}

interface ListedComment {
  id: number;
  body?: string;
  user?: CommentAuthor | null;
}

/** The first comment carrying the marker that this identity wrote. */
export function ownComment<C extends ListedComment>(
  comments: C[],
  marker: string,
  identity: Identity,
): C | undefined {
  return comments.find((c) => c.body?.startsWith(marker) && isAuthoredBy(c.user, identity));
}

/** Creates or updates this environment's comment; answers which it did, its id and its URL. */
export async function upsertComment(
  target: CommentTarget,
  environment: string,
  body: string,
): Promise<CommentWritten> {
  const [owner, repo] = target.repository.split("/") as [string, string];
  const octokit = new Octokit({
    auth: target.token,
    baseUrl: target.apiUrl,
    userAgent: "sponson-edge-action",
  });
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: target.issueNumber,
    per_page: 100,
  });
  const marker = commentMarker(environment);
  // Who we post as is asked only when some comment carries the marker: a first run makes no extra call.
  const candidates = comments.filter((c) => c.body?.startsWith(marker));
  const mine =
    candidates.length > 0 ? ownComment(candidates, marker, await resolveIdentity(octokit)) : undefined;
  if (mine) {
    const updated = await octokit.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body });
    return { action: "updated", id: mine.id, url: updated.data.html_url };
  }
  const created = await octokit.rest.issues.createComment({
    owner,
    repo,
    issue_number: target.issueNumber,
    body,
  });
  return { action: "created", id: created.data.id, url: created.data.html_url };
}
