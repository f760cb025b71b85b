/** Seeds the emulated GitHub REST API (one object for api.github.com): a repository, its pulls, tokens. */
import {
  GITHUB_API_HOST,
  type GitHubPull,
  type GitHubToken,
  githubKeys,
  pullRecord,
} from "../../dev/emulators/github";
import { emulatorStub } from "./emulators";
import { DEFAULT_REPOSITORY } from "./repositories";

export { GITHUB_API_HOST };

/** A token no other test uses (the host's storage is shared by every file). */
export function freshGitHubToken(): string {
  return `ghp_test${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * The default repository (private, so only a token that names it sees it), `token` able to read
 * it, and one pull request per entry of `pulls` (number → open or closed, or a partial record).
 */
export async function seedGitHub(
  token: string,
  pulls: Record<number, "open" | "closed" | Partial<GitHubPull>>,
  grant: Partial<GitHubToken> = {},
  repository = DEFAULT_REPOSITORY,
): Promise<void> {
  const entries: Record<string, unknown> = {
    [githubKeys.repo(repository.name)]: {
      id: repository.id,
      full_name: repository.name,
      private: true,
      default_branch: "main",
    },
    [githubKeys.token(token)]: { login: "admin-user", repositories: [repository.name], ...grant },
  };
  for (const [n, seed] of Object.entries(pulls)) {
    const record = typeof seed === "string" ? { state: seed } : seed;
    entries[githubKeys.pull(repository.name, Number(n))] = pullRecord(Number(n), record);
  }
  await emulatorStub(GITHUB_API_HOST).seed(entries);
}
