/**
 * The service's own configuration the receiver acts on: which repositories it serves
 * (SPONSON_REPOSITORIES, `[{ "name": "owner/repo", "id": 123 }]`) and in which environments a
 * closed pull request is destroyed (SPONSON_ENVIRONMENTS, default `["preview"]`). Vars arrive as
 * JSON strings from wrangler.toml and as values from JSON bindings; both are accepted.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import { isValidEnvironment } from "../../shared/lock-keys";

const repositoriesSchema = z.array(z.object({ name: z.string().min(1), id: z.number().int().positive() }));
const environmentsSchema = z
  .array(z.string().refine(isValidEnvironment, "not a valid environment name"))
  .min(1)
  .max(50);

export type ConfiguredRepository = z.infer<typeof repositoriesSchema>[number];

export const DEFAULT_ENVIRONMENTS = ["preview"] as const;

export function configuredRepositories(env: Env): ConfiguredRepository[] {
  return parseVar(env, "SPONSON_REPOSITORIES", repositoriesSchema) ?? [];
}

export function destroyEnvironments(env: Env): string[] {
  return [...new Set(parseVar(env, "SPONSON_ENVIRONMENTS", environmentsSchema) ?? DEFAULT_ENVIRONMENTS)];
}

/** A repository is served only when both its id and its name match: ids survive renames, names are what operators read. */
export function isConfiguredRepository(repos: ConfiguredRepository[], id: number, fullName: string): boolean {
  return repos.some((r) => r.id === id && r.name.toLowerCase() === fullName.toLowerCase());
}

function parseVar<T>(env: Env, name: string, schema: z.ZodType<T>): T | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new SponsonError("INTERNAL", `${name} is not valid JSON`);
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new SponsonError("INTERNAL", `${name} is not valid: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
