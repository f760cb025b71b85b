import type { Hook } from "@hono/zod-openapi";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";

/**
 * zod failures at the request boundary become 400 VALIDATION problems naming each field. One
 * message given for several fields (an old plan format, say) is said once, with all its fields.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  const issues = result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const byMessage = new Map<string, string[]>();
  for (const { path, message } of issues) byMessage.set(message, [...(byMessage.get(message) ?? []), path]);
  const summary = [...byMessage]
    .map(([message, paths]) => {
      const named = paths.filter(Boolean);
      return named.length > 0 ? `${named.join(", ")}: ${message}` : message;
    })
    .join("; ");
  throw new SponsonError("VALIDATION", summary || "invalid request", { issues });
};
