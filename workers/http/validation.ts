import type { Hook } from "@hono/zod-openapi";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";

/** zod failures at the request boundary become 400 VALIDATION problems naming each field. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  const issues = result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const summary = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  throw new SponsonError("VALIDATION", summary || "invalid request", { issues });
};
