/**
 * `npm start` works out of the box for `sponson adopt` (docs/deploy.md, "Day one: existing
 * entries"): on first use the emulated GitHub has the demo repository the local service serves
 * (scripts/dev-webhook.mjs) with pull requests 71 and 73 open and 72 closed (the demo
 * tenant's `legacy-app` has their preview URLs), readable with the token
 * DEMO_GITHUB_TOKEN. Local values, not secrets.
 */
import type { EmulatorState } from "../emulator";
import { type GitHubToken, githubKeys, pullRecord } from "./state";

export const DEMO_GITHUB_REPOSITORY = { name: "Codertocat/Hello-World", id: 186853002 } as const;
export const DEMO_GITHUB_TOKEN = "ghp_sponson-local-demo";
const PROVISIONED = "demo:provisioned";

export function provisionDemoRepository(state: EmulatorState): void {
  if (state.get<boolean>(PROVISIONED)) return;
  const { name, id } = DEMO_GITHUB_REPOSITORY;
  if (!state.get(githubKeys.repo(name)))
    state.put(githubKeys.repo(name), { id, full_name: name, private: true, default_branch: "main" });
  state.put<GitHubToken>(githubKeys.token(DEMO_GITHUB_TOKEN), { login: "octocat", repositories: [name] });
  for (const [n, pr] of [
    [71, "open"],
    [72, "closed"],
    [73, "open"],
  ] as const)
    if (!state.get(githubKeys.pull(name, n)))
      state.put(githubKeys.pull(name, n), pullRecord(n, { state: pr }));
  state.put(PROVISIONED, true);
}
