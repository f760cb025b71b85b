/**
 * What the Action reads from the job's event payload ($GITHUB_EVENT_PATH): the pull request, if
 * any, and whether it comes from a fork — GitHub gives a fork's pull_request job no `id-token`, so
 * the Action cannot act for it and says so instead of failing (docs/cli.md, "The GitHub Action").
 */
import { readFileSync } from "node:fs";

export interface PullRequest {
  number: number;
  /** `owner/name` of the repository the pull request is opened in. */
  repository: string;
  fromFork: boolean;
}

type Payload = {
  pull_request?: {
    number?: unknown;
    head?: { repo?: { full_name?: unknown; fork?: unknown } | null };
    base?: { repo?: { full_name?: unknown } };
  };
  repository?: { full_name?: unknown };
};

export function readPayload(path: string | undefined): Payload {
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Payload;
  } catch {
    return {};
  }
}

export function pullRequestOf(payload: Payload): PullRequest | null {
  const pr = payload.pull_request;
  if (typeof pr?.number !== "number") return null;
  const base = pr.base?.repo?.full_name ?? payload.repository?.full_name;
  const head = pr.head?.repo?.full_name;
  // A deleted fork has head.repo null: still not this repository.
  const fromFork =
    pr.head?.repo === null || (typeof head === "string" && typeof base === "string" && head !== base);
  return { number: pr.number, repository: String(base ?? ""), fromFork };
}
