/**
 * `SPONSON_REPOSITORIES`, read once per value: the repositories the service acts for. Vars arrive
 * as JSON strings from wrangler.toml and as values from JSON bindings; both are accepted. A present
 * but invalid value is a misconfiguration: the Worker refuses (INTERNAL) rather than guess.
 */
import { SponsonError } from "../../shared/errors";
import { type RepositoryConfig, repositoriesConfigSchema } from "../../shared/schemas/repository";

export type RepositoriesParse = { ok: true; value: RepositoryConfig[] } | { ok: false; problem: string };

let cached: { raw: unknown; parsed: RepositoriesParse } | undefined;

/** Pure: the configured list, `[]` when unset, or what is wrong with it. */
export function parseRepositoriesVar(raw: unknown): RepositoriesParse {
  if (raw === undefined || raw === null || raw === "") return { ok: true, value: [] };
  if (cached?.raw === raw) return cached.parsed;
  let json: unknown = raw;
  if (typeof raw === "string") {
    try {
      json = JSON.parse(raw);
    } catch {
      return { ok: false, problem: "SPONSON_REPOSITORIES is not JSON" };
    }
  }
  const checked = repositoriesConfigSchema.safeParse(json);
  const parsed: RepositoriesParse = checked.success
    ? { ok: true, value: checked.data }
    : {
        ok: false,
        problem: `SPONSON_REPOSITORIES is not valid: ${checked.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`,
      };
  if (typeof raw === "string") cached = { raw, parsed };
  return parsed;
}

export function configuredRepositories(env: { SPONSON_REPOSITORIES?: unknown }): RepositoryConfig[] {
  const parsed = parseRepositoriesVar(env.SPONSON_REPOSITORIES);
  if (parsed.ok) return parsed.value;
  console.error(parsed.problem);
  throw new SponsonError("INTERNAL", "SPONSON_REPOSITORIES misconfigured");
}

/**
 * A repository is served only when both its id and its name match: ids survive renames, names
 * are what operators read.
 */
export function configuredRepositoryOf(
  repositories: readonly RepositoryConfig[],
  id: number,
  fullName: string,
): RepositoryConfig | undefined {
  return repositories.find((r) => r.id === id && r.name.toLowerCase() === fullName.toLowerCase());
}

/**
 * The one repository legacy receipts (written before scopes carried a repository) belong to:
 * only when exactly one is configured. With several, nothing is guessed (README "Migrating").
 */
export function legacyRepository(repositories: readonly RepositoryConfig[]): RepositoryConfig | undefined {
  return repositories.length === 1 ? repositories[0] : undefined;
}
