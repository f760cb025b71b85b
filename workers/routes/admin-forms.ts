/**
 * The CSRF token an admin's dashboard forms carry (force-release, hold, lift a hold): only for an
 * admin with a browser session (workers/auth/dashboard-session.ts); null for anyone else, who is
 * shown no form. The forms' routes check the token, the origin and the role again.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { roleAtLeast } from "../auth/caller";
import { csrfToken, dashboardSessionToken } from "../auth/dashboard-session";

export async function adminFormCsrf(c: Context<AppEnv>): Promise<string | null> {
  const session = dashboardSessionToken(c);
  if (session === undefined || !roleAtLeast(c.get("caller").role, "admin")) return null;
  return csrfToken(session);
}
