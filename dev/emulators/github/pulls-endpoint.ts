/**
 * `GET /repos/{owner}/{repo}`, `GET /repos/{owner}/{repo}/pulls/{pull_number}` and
 * `GET /repos/{owner}/{repo}/pulls` as GitHub's REST API answers them (docs.github.com/rest/pulls):
 * the full pull request for one, GitHub's list shape (no `merged`, `mergeable`, counts) for the
 * list, paged by `per_page` (at most 100, default 30) and `page` with a `Link` header, newest first.
 */
import type { EmulatorState } from "../emulator";
import { githubError, type Headers, PULL_DOCS, reply } from "./responses";
import { type GitHubPull, type GitHubRepository, githubKeys } from "./state";

export const REPO_PATH = /^\/repos\/([^/]+)\/([^/]+)$/;
export const PULL_PATH = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/([0-9]+)$/;
export const PULLS_PATH = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/;

const LIST_DOCS = "https://docs.github.com/rest/pulls/pulls#list-pull-requests";
const STATES = new Set(["open", "closed", "all"]);

function user(login: string) {
  return {
    login,
    id: 583231,
    node_id: "MDQ6VXNlcjU4MzIzMQ==",
    avatar_url: "https://avatars.githubusercontent.com/u/583231?v=4",
    url: `https://api.github.com/users/${login}`,
    html_url: `https://github.com/${login}`,
    type: "User",
    site_admin: false,
  };
}

export function repositoryView(repo: GitHubRepository) {
  const [owner = "", name = ""] = repo.full_name.split("/");
  return {
    id: repo.id,
    node_id: `R_kgDO${repo.id}`,
    name,
    full_name: repo.full_name,
    private: repo.private,
    owner: user(owner),
    html_url: `https://github.com/${repo.full_name}`,
    url: `https://api.github.com/repos/${repo.full_name}`,
    default_branch: repo.default_branch,
    visibility: repo.private ? "private" : "public",
  };
}

function branchView(repo: GitHubRepository, ref: string, sha: string) {
  const owner = repo.full_name.split("/")[0] ?? "";
  return { label: `${owner}:${ref}`, ref, sha, user: user(owner), repo: repositoryView(repo) };
}

/** A pull request as the list answers it; `full` adds what only the single GET carries. */
export function pullView(repo: GitHubRepository, p: GitHubPull, full: boolean) {
  const api = `https://api.github.com/repos/${repo.full_name}`;
  const html = `https://github.com/${repo.full_name}/pull/${p.number}`;
  const sha = (p.number.toString(16) + "0".repeat(40)).slice(0, 40);
  const view = {
    url: `${api}/pulls/${p.number}`,
    id: 1_000_000_000 + p.number,
    node_id: `PR_kwDO${p.number}`,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${p.number}`,
    number: p.number,
    state: p.state,
    locked: false,
    title: p.title,
    user: user(p.user),
    body: null,
    created_at: p.created_at,
    updated_at: p.updated_at,
    closed_at: p.closed_at,
    merged_at: p.merged ? p.closed_at : null,
    merge_commit_sha: p.merged ? sha : null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    labels: [],
    milestone: null,
    draft: p.draft,
    head: branchView(repo, p.head, sha),
    base: branchView(repo, p.base, "0".repeat(40)),
    author_association: "MEMBER",
    auto_merge: null,
    active_lock_reason: null,
  };
  if (!full) return view;
  return {
    ...view,
    merged: p.merged,
    mergeable: p.state === "open" ? true : null,
    mergeable_state: p.state === "open" ? "clean" : "unknown",
    merged_by: p.merged ? user(p.user) : null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 1,
    deletions: 0,
    changed_files: 1,
  };
}

export function getPull(state: EmulatorState, repo: GitHubRepository, n: number, headers: Headers) {
  const pull = state.get<GitHubPull>(githubKeys.pull(repo.full_name, n));
  if (!pull) return githubError(404, "Not Found", PULL_DOCS, headers);
  return reply(200, pullView(repo, pull, true), headers);
}

function pageLink(repo: GitHubRepository, query: URLSearchParams, page: number, rel: string): string {
  const q = new URLSearchParams(query);
  q.set("page", String(page));
  // GitHub's page links name the repository by id.
  return `<https://api.github.com/repositories/${repo.id}/pulls?${q}>; rel="${rel}"`;
}

export function listPulls(state: EmulatorState, repo: GitHubRepository, url: URL, headers: Headers) {
  const query = url.searchParams;
  const which = query.get("state") ?? "open";
  const perPage = Math.min(Math.max(Number(query.get("per_page") ?? 30) || 30, 1), 100);
  const page = Math.max(Number(query.get("page") ?? 1) || 1, 1);
  if (!STATES.has(which)) {
    return reply(
      422,
      {
        message: "Validation Failed",
        errors: [{ resource: "Issue", field: "state", code: "invalid" }],
        documentation_url: LIST_DOCS,
        status: "422",
      },
      headers,
    );
  }
  const head = query.get("head");
  const all = [...state.list<GitHubPull>(githubKeys.pullsOf(repo.full_name)).values()]
    .filter((p) => which === "all" || p.state === which)
    .filter((p) => head === null || `${repo.full_name.split("/")[0]}:${p.head}` === head)
    // sort=created, direction=desc: the defaults.
    .sort((a, b) => b.number - a.number);
  const last = Math.max(Math.ceil(all.length / perPage), 1);
  const links: string[] = [];
  if (page < last) links.push(pageLink(repo, query, page + 1, "next"), pageLink(repo, query, last, "last"));
  if (page > 1) links.push(pageLink(repo, query, page - 1, "prev"), pageLink(repo, query, 1, "first"));
  const shown = all.slice((page - 1) * perPage, page * perPage).map((p) => pullView(repo, p, false));
  return reply(200, shown, links.length > 0 ? { ...headers, link: links.join(", ") } : headers);
}
