/**
 * `/v1/redirect_urls` (Clerk Backend API 2026-05-12): each URL an object of its own. The list is
 * newest first, `limit` 1–500 defaulting to 10, `offset`; with `paginated=true` the body is `{
 * data, total_count }`, else a bare array. POST `{ url }` takes `https://` or a custom scheme and
 * answers the object (200); DELETE answers a DeletedObject; an unknown id is 404. What Clerk
 * answers to a second POST of a URL it holds is not documented: the emulator refuses it (422
 * `duplicate_record`), so a client must find what is there before it creates.
 */
import type { EmulatorState } from "../emulator";
import { clerkError, clerkJson, notFound } from "./responses";
import {
  type ClerkRace,
  type ClerkRedirectUrl,
  clerkKeys,
  clerkRedirectUrl,
  OUTSIDE_ID_PREFIX,
} from "./state";

export const REDIRECT_URLS_PATH = /^\/v1\/redirect_urls(?:\/([^/]+))?$/;
const URL_FORMAT = /^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i;

function stored(state: EmulatorState, instance: string): ClerkRedirectUrl[] {
  return [...state.list<ClerkRedirectUrl>(clerkKeys.redirects(instance)).values()].sort(
    (a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1),
  );
}

function intParam(url: URL, name: string, fallback: number, min: number, max: number): number | Response {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    return clerkError(
      422,
      "form_param_format_invalid",
      "is invalid",
      `${name} must be between ${min} and ${max}`,
      {
        param_name: name,
      },
    );
  return n;
}

/** `short`: the page leaves out its last URL, `total_count` unchanged (the ClerkKey.shortPages hook). */
export function listRedirectUrls(state: EmulatorState, instance: string, url: URL, short = false): Response {
  const limit = intParam(url, "limit", 10, 1, 500);
  if (limit instanceof Response) return limit;
  const offset = intParam(url, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
  if (offset instanceof Response) return offset;
  const all = stored(state, instance);
  const page = all.slice(offset, offset + limit);
  const data = short ? page.slice(0, -1) : page;
  return clerkJson(
    200,
    url.searchParams.get("paginated") === "true" ? { data, total_count: all.length } : data,
  );
}

export function getRedirectUrl(state: EmulatorState, instance: string, id: string): Response {
  const found = state.get<ClerkRedirectUrl>(clerkKeys.redirect(instance, id));
  return found ? clerkJson(200, found) : notFound("Redirect url", id);
}

let sequence = 0;
const newId = (nowMs: number) =>
  `ru_${nowMs.toString(36)}${(sequence++ % 1296).toString(36).padStart(2, "0")}${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

export async function createRedirectUrl(
  request: Request,
  state: EmulatorState,
  instance: string,
  secretKey: string,
): Promise<Response> {
  const body = (await request.json().catch(() => null)) as { url?: unknown } | null;
  const url = body?.url;
  if (typeof url !== "string" || url === "")
    return clerkError(422, "form_param_missing", "is missing", "url must be included", { param_name: "url" });
  if (!URL_FORMAT.test(url) || /^http:\/\//i.test(url))
    return clerkError(
      422,
      "form_param_format_invalid",
      "is invalid",
      "url must be prefixed with https:// or a custom scheme e.g. my-app://oauth-callback",
      { param_name: "url" },
    );
  raceFor(state, instance, secretKey, url);
  if (stored(state, instance).some((r) => r.url === url))
    return clerkError(422, "duplicate_record", "duplicate record", `A redirect url ${url} already exists`, {
      param_name: "url",
    });
  const now = Date.now();
  const record = clerkRedirectUrl(newId(now), url, now);
  state.put(clerkKeys.redirect(instance, record.id), record);
  return clerkJson(200, record);
}

/** The ClerkRace hook: someone else creates `url` right before this POST, when its count is up. */
function raceFor(state: EmulatorState, instance: string, secretKey: string, url: string): void {
  const prefix = clerkKeys.races(secretKey);
  for (const [key, race] of state.list<ClerkRace>(prefix)) {
    if (race.nth < 1 || !url.includes(key.slice(prefix.length))) continue;
    if (race.nth > 1) {
      state.put<ClerkRace>(key, { nth: race.nth - 1 });
      continue;
    }
    state.delete(key);
    const now = Date.now();
    const id = `${OUTSIDE_ID_PREFIX}${newId(now).slice(3)}`;
    state.put(clerkKeys.redirect(instance, id), clerkRedirectUrl(id, url, now));
  }
}

export function deleteRedirectUrl(state: EmulatorState, instance: string, id: string): Response {
  const key = clerkKeys.redirect(instance, id);
  if (!state.get<ClerkRedirectUrl>(key)) return notFound("Redirect url", id);
  state.delete(key);
  return clerkJson(200, { object: "redirect_url", id, deleted: true });
}
