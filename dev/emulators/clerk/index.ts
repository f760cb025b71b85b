/**
 * The Clerk Backend API emulator (api.clerk.com): the instance (./instance-endpoint.ts) and its
 * redirect URLs (./redirect-urls-endpoint.ts), for the instance the Bearer secret key belongs to;
 * ClerkErrors envelopes and the per-key rate limit (./responses.ts). State: ./state.ts.
 */
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { provisionDemoInstance } from "./demo";
import { getInstance, patchInstance } from "./instance-endpoint";
import {
  createRedirectUrl,
  deleteRedirectUrl,
  getRedirectUrl,
  listRedirectUrls,
  REDIRECT_URLS_PATH,
} from "./redirect-urls-endpoint";
import { clerkError, overRateLimit, tooManyRequests } from "./responses";
import { type ClerkInstanceRecord, type ClerkKey, clerkKeys } from "./state";

export const CLERK_HOST = "api.clerk.com";
const INSTANCE_PATH = "/v1/instance";
/** An injected 429 asks for this many seconds. */
const INJECTED_RETRY_AFTER_SECONDS = 2;

const pathOf = (request: Request) => new URL(request.url).pathname;
const isClerkPath = (path: string) => path === INSTANCE_PATH || REDIRECT_URLS_PATH.test(path);

/**
 * A secret key Clerk does not know. Clerk's own words, in message and long_message alike; the code
 * is the one @clerk/backend looks for to tell a bad key from any other refusal of its JWKS fetch.
 */
const BAD_SECRET_KEY =
  "The provided Clerk Secret Key is invalid. Make sure that your Clerk Secret Key is correct.";
const unauthorized = () => clerkError(401, "clerk_key_invalid", BAD_SECRET_KEY, BAD_SECRET_KEY);

export const clerkEmulator: ProviderEmulatorModule = {
  provider: "clerk",
  matches: (host) => host === CLERK_HOST,
  isRead: (request) => request.method === "GET" && isClerkPath(pathOf(request)),
  isWrite: (request) => request.method !== "GET" && isClerkPath(pathOf(request)),

  async handle(request, state) {
    provisionDemoInstance(state);
    const url = new URL(request.url);
    const header = request.headers.get("authorization");
    const secretKey = header?.match(/^Bearer (\S+)$/)?.[1];
    if (!secretKey)
      return clerkError(
        401,
        "authorization_header_format_invalid",
        "Invalid Authorization header format",
        "Must be 'Bearer <YOUR_API_KEY>'",
      );
    const key = state.get<ClerkKey>(clerkKeys.key(secretKey));
    const instance = key ? state.get<ClerkInstanceRecord>(clerkKeys.instance(key.instance)) : undefined;
    if (!key || !instance) return unauthorized();
    const limited = overRateLimit(secretKey, Date.now());
    if (limited) return limited;
    if (key.forbidden)
      return clerkError(
        403,
        "authorization_invalid",
        "Unauthorized request",
        "You are not authorized to perform this request",
      );

    if (url.pathname === INSTANCE_PATH) {
      if (request.method === "GET") return getInstance(state, instance);
      if (request.method === "PATCH") return patchInstance(request, state, instance);
    }
    const match = url.pathname.match(REDIRECT_URLS_PATH);
    if (match) {
      const id = match[1] === undefined ? undefined : decodeURIComponent(match[1]);
      if (id === undefined && request.method === "GET")
        return listRedirectUrls(state, instance.id, url, takeShortPage(state, secretKey, key));
      if (id === undefined && request.method === "POST")
        return createRedirectUrl(request, state, instance.id, secretKey);
      if (id !== undefined && request.method === "GET") return getRedirectUrl(state, instance.id, id);
      if (id !== undefined && request.method === "DELETE") return deleteRedirectUrl(state, instance.id, id);
    }
    return clerkError(
      404,
      "resource_not_found",
      "not found",
      `${request.method} ${url.pathname} does not exist`,
    );
  },

  injectedError(status) {
    if (status === 429) return tooManyRequests(INJECTED_RETRY_AFTER_SECONDS);
    if (status >= 500)
      return clerkError(
        status,
        "internal_clerk_error",
        "Oops, an unexpected error occurred",
        "There was an internal error on our servers. We've been notified and are working on fixing it.",
      );
    return clerkError(status, "unexpected_error", "Unexpected error", "Unexpected error");
  },
};

export { DEMO_CLERK } from "./demo";
export {
  type ClerkInstanceRecord,
  type ClerkKey,
  type ClerkRace,
  type ClerkRedirectUrl,
  clerkInstance,
  clerkKeys,
  clerkRedirectUrl,
  OUTSIDE_ID_PREFIX,
} from "./state";

/** Whether this list page is answered short (ClerkKey.shortPages), counting the fault down. */
function takeShortPage(state: EmulatorState, secretKey: string, key: ClerkKey): boolean {
  if (!key.shortPages) return false;
  state.put(clerkKeys.key(secretKey), { ...key, shortPages: key.shortPages - 1 } satisfies ClerkKey);
  return true;
}
