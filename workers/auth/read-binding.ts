/**
 * The repository a request's reads are limited to (docs/security.md, "Repository isolation"): the
 * one the caller's credential is bound to (workers/auth/resolve-repository.ts), or null for a caller
 * that may read every repository (admin tokens, and tokens without a `repository` claim).
 */
import type { Context } from "hono";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import type { AppEnv } from "../app-env";
import { configFromEnv } from "../config/config";
import { boundRepository } from "./resolve-repository";
import { callerOf } from "./route-access";

export function readBinding(c: Context<AppEnv>): RepositoryConfig | null {
  return boundRepository(callerOf(c), configFromEnv(c.env).repositories)?.repository ?? null;
}
