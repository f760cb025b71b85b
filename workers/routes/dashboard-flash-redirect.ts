/** Post/redirect/get for the dashboard's forms: the outcome in a flash (workers/auth/dashboard-flash.ts). */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { type Flash, setFlash } from "../auth/dashboard-flash";
import { dashboardSessionToken } from "../auth/dashboard-session";

export async function flashRedirect(c: Context<AppEnv>, kind: Flash["kind"], key: string): Promise<Response> {
  // Always set: the form routes passed assertDashboardPost, which requires a session.
  const session = dashboardSessionToken(c);
  if (session !== undefined) await setFlash(c, session, { kind, key, at: Date.now() });
  return c.redirect("/dashboard", 303);
}
