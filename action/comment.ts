/**
 * One pull-request comment per environment (docs/cli.md, "Results in the pull request"): created on
 * the first run, updated on every later one, found again by a hidden marker naming the environment.
 * Written with the job's own token (`pull-requests: write`), through GITHUB_API_URL.
 */
import { Octokit } from "@octokit/rest";
import type { RunResult } from "../cli/client";
import { runSummary } from "../cli/step-summary";

export const commentMarker = (environment: string) => `<!-- sponson-edge: environment=${environment} -->`;

export function commentBody(result: RunResult, runUrl: string): string {
  return [
    commentMarker(result.run.environment),
    runSummary(result).trimEnd(),
    "",
    `[Run \`${result.run.id}\` on the dashboard](${runUrl})`,
    "",
  ].join("\n");
}

export interface CommentTarget {
  apiUrl: string;
  token: string;
  repository: string;
  issueNumber: number;
}

/** Creates or updates this environment's comment; answers which it did. */
export async function upsertComment(
  target: CommentTarget,
  environment: string,
  body: string,
): Promise<{ action: "created" | "updated"; id: number }> {
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
  const mine = comments.find((c) => c.body?.startsWith(commentMarker(environment)));
  if (mine) {
    await octokit.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body });
    return { action: "updated", id: mine.id };
  }
  const created = await octokit.rest.issues.createComment({
    owner,
    repo,
    issue_number: target.issueNumber,
    body,
  });
  return { action: "created", id: created.data.id };
}
