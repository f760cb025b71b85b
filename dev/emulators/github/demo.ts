/**
 * `npm start` works out of the box for `sponson adopt` (docs/deploy.md, "Day one: existing
 * entries"): on first use the emulated GitHub has the demo repository the local service serves
 * (scripts/dev-webhook.mjs) with pull requests 41 to 80, the odd ones open and the even ones closed
 * (the demo tenant's `legacy-app` has the preview URLs of 71, 72 and 73; a seeded list can use the
 * others), readable with the token DEMO_GITHUB_TOKEN. Local values, not secrets.
 */
import type { EmulatorState } from "../emulator";
import { type GitHubToken, githubKeys, pullRecord } from "./state";

export const DEMO_GITHUB_REPOSITORY = { name: "Codertocat/Hello-World", id: 186853002 } as const;
export const DEMO_GITHUB_TOKEN = "ghp_sponson-local-demo";
/** Versioned: state provisioned before pull requests 41 to 80 existed gains them at its next use. */
const PROVISIONED = "demo:provisioned:41-80";
const FIRST_PULL = 41;
const LAST_PULL = 80;
/** The demo repository's pull requests and their state: odd open, even closed. */
export const DEMO_PULLS: ReadonlyMap<number, "open" | "closed"> = new Map(
  Array.from({ length: LAST_PULL - FIRST_PULL + 1 }, (_, i) => {
    const n = FIRST_PULL + i;
    return [n, n % 2 === 1 ? "open" : "closed"] as const;
  }),
);

export function provisionDemoRepository(state: EmulatorState): void {
  if (state.get<boolean>(PROVISIONED)) return;
  const { name, id } = DEMO_GITHUB_REPOSITORY;
  if (!state.get(githubKeys.repo(name)))
    state.put(githubKeys.repo(name), { id, full_name: name, private: true, default_branch: "main" });
  state.put<GitHubToken>(githubKeys.token(DEMO_GITHUB_TOKEN), { login: "octocat", repositories: [name] });
  // A pull request a test or a seed put there first keeps its state.
  for (const [n, pr] of DEMO_PULLS)
    if (!state.get(githubKeys.pull(name, n)))
      state.put(githubKeys.pull(name, n), pullRecord(n, { state: pr }));
  state.put(PROVISIONED, true);
}
