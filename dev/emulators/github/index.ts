/**
 * The GitHub REST emulator (api.github.com): the repository and its pull requests, as `sponson
 * adopt` asks them (./pulls-endpoint.ts), with GitHub's authentication answers (401 `Bad
 * credentials`; 404 for a repository the token cannot see, as GitHub hides private ones), its
 * primary rate limit (403 with `x-ratelimit-remaining: 0`) and its User-Agent rule. State:
 * ./state.ts; the demo repository of `npm start`: ./demo.ts. Nothing is written: every request is a read.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { provisionDemoRepository } from "./demo";
import { getPull, listPulls, PULL_PATH, PULLS_PATH, REPO_PATH, repositoryView } from "./pulls-endpoint";
import {
  GITHUB_RATE_LIMIT,
  githubError,
  githubHeaders,
  noUserAgent,
  RATE_LIMIT_DOCS,
  reply,
} from "./responses";
import { type GitHubRepository, type GitHubToken, githubKeys } from "./state";

export const GITHUB_API_HOST = "api.github.com";

const INJECTED: Record<number, string> = {
  429: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
  500: "Server Error",
  502: "Server Error",
  503: "Service Unavailable",
};

function tokenOf(request: Request): string | null {
  return request.headers.get("authorization")?.match(/^(?:Bearer|token) (\S+)$/i)?.[1] ?? null;
}

function canSee(token: GitHubToken | null, repo: GitHubRepository): boolean {
  if (!repo.private) return true;
  if (token === null) return false;
  return (
    token.repositories === "*" ||
    token.repositories.some((r) => r.toLowerCase() === repo.full_name.toLowerCase())
  );
}

export const githubEmulator: ProviderEmulatorModule = {
  provider: "github",
  matches: (host) => host === GITHUB_API_HOST,
  isRead: (request) => request.method === "GET",
  isWrite: () => false,

  async handle(request, state) {
    const now = Date.now();
    if (!request.headers.get("user-agent")) return noUserAgent();
    provisionDemoRepository(state);
    const url = new URL(request.url);
    const bearer = tokenOf(request);
    const token = bearer === null ? null : (state.get<GitHubToken>(githubKeys.token(bearer)) ?? null);
    if (bearer !== null && token === null)
      return githubError(401, "Bad credentials", undefined, githubHeaders(GITHUB_RATE_LIMIT, now));
    const remaining = token?.remaining ?? GITHUB_RATE_LIMIT;
    if (token && bearer !== null && remaining <= 0) {
      return githubError(
        403,
        `API rate limit exceeded for user ID 583231.`,
        RATE_LIMIT_DOCS,
        githubHeaders(0, now),
      );
    }
    if (token && bearer !== null && token.remaining !== undefined)
      state.put<GitHubToken>(githubKeys.token(bearer), { ...token, remaining: remaining - 1 });
    const headers = githubHeaders(Math.max(remaining - 1, 0), now);
    const path = url.pathname;
    const m = PULL_PATH.exec(path) ?? PULLS_PATH.exec(path) ?? REPO_PATH.exec(path);
    if (request.method !== "GET" || !m) return githubError(404, "Not Found", undefined, headers);
    const fullName = `${decodeURIComponent(m[1] ?? "")}/${decodeURIComponent(m[2] ?? "")}`;
    const repo = state.get<GitHubRepository>(githubKeys.repo(fullName));
    if (!repo || !canSee(token, repo)) return githubError(404, "Not Found", undefined, headers);
    if (PULL_PATH.test(path)) return getPull(state, repo, Number(m[3]), headers);
    if (PULLS_PATH.test(path)) return listPulls(state, repo, url, headers);
    return reply(200, repositoryView(repo), headers);
  },

  injectedError(status, nowMs) {
    const headers = githubHeaders(GITHUB_RATE_LIMIT, nowMs);
    if (status === 429) headers["retry-after"] = "60";
    return githubError(status, INJECTED[status] ?? `Injected failure ${status}`, undefined, headers);
  },
};

export { DEMO_GITHUB_REPOSITORY, DEMO_GITHUB_TOKEN } from "./demo";
export { type GitHubPull, type GitHubRepository, type GitHubToken, githubKeys, pullRecord } from "./state";
