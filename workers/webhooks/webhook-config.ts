/**
 * The service's own configuration the receiver acts on besides the repositories it serves
 * (workers/repositories/configured.ts): in which environments a closed pull request is destroyed
 * (SPONSON_ENVIRONMENTS, default `["preview"]`). Vars arrive as JSON strings from wrangler.toml and
 * as values from JSON bindings; both are accepted.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import { isValidEnvironment } from "../../shared/lock-keys";

const environmentsSchema = z
  .array(z.string().refine(isValidEnvironment, "not a valid environment name"))
  .min(1)
  .max(50);

export const DEFAULT_ENVIRONMENTS = ["preview"] as const;

export function destroyEnvironments(env: Env): string[] {
  return [...new Set(parseVar(env, "SPONSON_ENVIRONMENTS", environmentsSchema) ?? DEFAULT_ENVIRONMENTS)];
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
