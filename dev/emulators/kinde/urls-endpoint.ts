/**
 * The item-level URL lists of an application: GET, POST `{urls}` (adds), PUT `{urls}` (replaces
 * all), DELETE `?urls=a,b` (removes; comma-separated). Writes answer `{code:"OK", message:"Success"}`.
 */
import type { EmulatorState } from "../emulator";
import { kindeError, ok, reply } from "./responses";
import { type KindeApp, kindeKeys } from "./state";

export const LIST_PATH = /^\/api\/v1\/applications\/([^/]+)\/(auth_redirect_urls|auth_logout_urls)$/;

async function urlsFrom(request: Request): Promise<string[] | null> {
  try {
    const body = (await request.json()) as { urls?: unknown };
    return Array.isArray(body.urls) && body.urls.every((u) => typeof u === "string") ? body.urls : null;
  } catch {
    return null;
  }
}

export async function handleList(
  request: Request,
  state: EmulatorState,
  appId: string,
  path: string,
): Promise<Response> {
  const field = path === "auth_redirect_urls" ? "redirect_urls" : "logout_urls";
  const app = state.get<KindeApp>(kindeKeys.app(appId));
  if (!app) return kindeError(400, "INVALID_APPLICATION_ID", "Invalid application id");
  if (request.method === "GET") {
    return reply(
      200,
      field === "logout_urls"
        ? { logout_urls: app.logout_urls, code: "OK", message: "Success" }
        : { redirect_urls: app.redirect_urls },
    );
  }
  if (request.method === "DELETE") {
    const urls = new URL(request.url).searchParams.get("urls");
    if (!urls) return kindeError(400, "URLS_REQUIRED", "urls is required");
    const gone = urls.split(",");
    const now = state.get<KindeApp>(kindeKeys.app(appId)) ?? app;
    state.put(kindeKeys.app(appId), { ...now, [field]: now[field].filter((u) => !gone.includes(u)) });
    return ok();
  }
  const urls = await urlsFrom(request);
  if (!urls) return kindeError(400, "INVALID_URLS", "urls must be an array of strings");
  const now = state.get<KindeApp>(kindeKeys.app(appId)) ?? app;
  // POST adds (an URL already there is kept once [U]); PUT replaces everything.
  const next =
    request.method === "PUT" ? urls : [...now[field], ...urls.filter((u) => !now[field].includes(u))];
  state.put(kindeKeys.app(appId), { ...now, [field]: next });
  return ok();
}
