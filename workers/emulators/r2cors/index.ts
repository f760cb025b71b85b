/**
 * api.cloudflare.com, the R2 bucket CORS subset of the v4 API (PROVIDERS.md §6): GET/PUT/DELETE
 * /client/v4/accounts/{account}/r2/buckets/{bucket}/cors in the `{success, errors, messages,
 * result}` envelope. No policy: 404 with code 10059. PUT replaces the whole policy, no precondition
 * (last write wins). Every answer carries `Ratelimit` / `Ratelimit-Policy`; a 429 adds Retry-After.
 * Storage keys: `token:<t>` → R2Token; `bucket:<account>/<bucket>` → R2Bucket.
 */
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { provisionDemoR2 } from "./demo";

export interface R2Token {
  accounts: string[];
  readOnly?: boolean;
}
export interface R2Bucket {
  rules?: unknown[];
}

export const r2Keys = {
  token: (t: string) => `token:${t}`,
  bucket: (account: string, bucket: string) => `bucket:${account}/${bucket}`,
} as const;

const CORS_PATH = /^\/client\/v4\/accounts\/([^/]+)\/r2\/buckets\/([^/]+)\/cors$/;
const LIMIT = 1200;
const WINDOW_SECONDS = 300;
let used = 0;

function rateHeaders(exhausted = false): Record<string, string> {
  used += 1;
  const remaining = exhausted ? 0 : Math.max(0, LIMIT - (used % LIMIT));
  return {
    ratelimit: `"default";r=${remaining};t=${exhausted ? 5 : WINDOW_SECONDS}`,
    "ratelimit-policy": `"default";q=${LIMIT};w=${WINDOW_SECONDS}`,
  };
}

export function cfEnvelope(
  status: number,
  result: unknown,
  errors: Array<{ code: number; message: string }> = [],
  extra: Record<string, string> = {},
) {
  return new Response(JSON.stringify({ success: errors.length === 0, errors, messages: [], result }), {
    status,
    headers: { "content-type": "application/json", ...rateHeaders(status === 429), ...extra },
  });
}
const cfError = (status: number, code: number, message: string, extra: Record<string, string> = {}) =>
  cfEnvelope(status, null, [{ code, message }], extra);

const METHODS = new Set(["GET", "PUT", "POST", "DELETE", "HEAD"]);

function malformed(body: unknown): boolean {
  const rules = (body as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return true;
  return rules.some((r) => {
    const allowed = (r as { allowed?: { origins?: unknown; methods?: unknown } } | null)?.allowed;
    return (
      !Array.isArray(allowed?.origins) ||
      allowed.origins.length === 0 ||
      !Array.isArray(allowed.methods) ||
      allowed.methods.some((m) => !METHODS.has(m as string))
    );
  });
}

async function handleCors(
  request: Request,
  state: EmulatorState,
  key: string,
  bucket: R2Bucket,
): Promise<Response> {
  if (request.method === "GET") {
    if (!bucket.rules || bucket.rules.length === 0)
      return cfError(404, 10059, "The CORS configuration does not exist.");
    return cfEnvelope(200, { rules: bucket.rules });
  }
  if (request.method === "DELETE") {
    state.put(key, { ...bucket, rules: [] });
    return cfEnvelope(200, null);
  }
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    body = null;
  }
  if (malformed(body)) return cfError(400, 10040, "The CORS configuration is malformed.");
  state.put(key, { ...(state.get<R2Bucket>(key) ?? bucket), rules: (body as { rules: unknown[] }).rules });
  return cfEnvelope(200, null);
}

export const r2CorsEmulator: ProviderEmulatorModule = {
  provider: "r2",
  matches: (host) => host === "api.cloudflare.com",
  isRead: (request) => request.method === "GET" && CORS_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method !== "GET" && CORS_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const match = new URL(request.url).pathname.match(CORS_PATH);
    if (match?.[1] && match[2]) provisionDemoR2(match[1], decodeURIComponent(match[2]), state);
    const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/i)?.[1];
    const token = bearer ? state.get<R2Token>(r2Keys.token(bearer)) : undefined;
    if (!token) return cfError(401, 10000, "Authentication error");
    if (!match?.[1] || !match[2] || !["GET", "PUT", "DELETE"].includes(request.method)) {
      return cfError(404, 7003, "Could not route to the requested resource.");
    }
    const [account, name] = [match[1], decodeURIComponent(match[2])];
    if (!token.accounts.includes(account) || (token.readOnly && request.method !== "GET")) {
      return cfError(403, 10000, "Authentication error");
    }
    const key = r2Keys.bucket(account, name);
    const bucket = state.get<R2Bucket>(key);
    if (!bucket) return cfError(404, 10006, "The specified bucket does not exist.");
    return handleCors(request, state, key, bucket);
  },

  injectedError(status) {
    if (status === 429)
      return cfError(429, 971, "Please wait and consider throttling your request speed", {
        "retry-after": "4",
      });
    return cfError(status, 10001, "Internal error");
  },
};
