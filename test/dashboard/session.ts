/** Drives the dashboard like a browser: a session cookie instead of an Authorization header. */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Role } from "../../workers/auth/caller";
import { FLASH_COOKIE } from "../../workers/auth/dashboard-flash";
import { csrfToken, SESSION_COOKIE } from "../../workers/auth/dashboard-session";
import type { TestApp } from "../helpers/app";
import { mintServiceToken } from "../helpers/tokens";

export const ORIGIN = "http://sponson.test";

export async function browserRequest(
  app: TestApp,
  method: string,
  path: string,
  options: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { origin: ORIGIN, ...options.headers };
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  const init: RequestInit = { method, headers, redirect: "manual" };
  if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    init.body = new URLSearchParams(options.form).toString();
  }
  const ctx = createExecutionContext();
  const res = await app.request(`${ORIGIN}${path}`, init, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export interface Session {
  token: string;
  cookie: string;
  csrf: string;
}

/** A signed-in session, as the sign-in form would make it (the form itself is tested separately). */
export async function session(role: Role, sub = `test-${role}`): Promise<Session> {
  const token = await mintServiceToken({ role, sub });
  return { token, cookie: `${SESSION_COOKIE}=${token}`, csrf: await csrfToken(token) };
}

/** The `name=value` of the flash cookie a dashboard form's redirect sets, to send with the next page. */
export function flashPair(res: Response): string {
  const line = res.headers.getSetCookie().find((l) => l.startsWith(`${FLASH_COOKIE}=`));
  if (line === undefined) throw new Error("the redirect set no flash cookie");
  return line.split(";")[0] ?? "";
}
