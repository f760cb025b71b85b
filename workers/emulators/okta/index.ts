/**
 * The Okta apps API emulator (PROVIDERS.md §2): GET and PUT /api/v1/apps/{appId} with SSWS tokens.
 * PUT is a full replace: a body missing a required property is refused 400 E0000001, and any
 * optional property left out (e.g. post_logout_redirect_uris) is gone afterwards. Read-only
 * properties in the body are ignored. No precondition: last write wins. Every answer carries
 * X-Rate-Limit-Limit/Remaining/Reset (epoch seconds). Storage keys: `token:<api token>` →
 * OktaToken; `app:<id>` → the app as stored.
 */
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { provisionDemoOrg } from "./demo";

export interface OktaToken {
  /** A read-only admin may GET apps but not change them. */
  readOnly?: boolean;
}

export const oktaKeys = { token: (t: string) => `token:${t}`, app: (id: string) => `app:${id}` } as const;

const APP_PATH = /^\/api\/v1\/apps\/([^/]+)$/;
const READ_ONLY = ["id", "status", "created", "lastUpdated", "_links", "_embedded"];
const RATE_LIMIT = 100;
const windows = new Map<string, { minute: number; used: number }>();

function rateHeaders(host: string, nowMs: number, exhausted = false): Record<string, string> {
  const minute = Math.floor(nowMs / 60_000);
  const w = windows.get(host);
  const used = exhausted ? RATE_LIMIT : w && w.minute === minute ? w.used + 1 : 1;
  windows.set(host, { minute, used });
  return {
    "x-rate-limit-limit": String(RATE_LIMIT),
    "x-rate-limit-remaining": String(Math.max(0, RATE_LIMIT - used)),
    "x-rate-limit-reset": String(exhausted ? Math.floor(nowMs / 1000) + 2 : (minute + 1) * 60),
  };
}

function reply(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function oktaError(
  status: number,
  code: string,
  summary: string,
  headers: Record<string, string>,
  causes: string[] = [],
): Response {
  return reply(
    status,
    {
      errorCode: code,
      errorSummary: summary,
      errorLink: code,
      errorId: `oae${crypto.randomUUID().replaceAll("-", "").slice(0, 19)}`,
      errorCauses: causes.map((errorSummary) => ({ errorSummary })),
    },
    headers,
  );
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

/** The properties an OIDC app's PUT must carry; missing ones are named like Okta does. */
function missingFields(body: Json): string[] {
  const missing: string[] = [];
  for (const field of ["name", "label", "signOnMode"])
    if (typeof body[field] !== "string") missing.push(field);
  if (!obj(obj(body.credentials)?.oauthClient)) missing.push("credentials.oauthClient");
  const client = obj(obj(body.settings)?.oauthClient);
  if (!client) return [...missing, "settings.oauthClient"];
  for (const field of ["grant_types", "response_types"]) {
    if (!Array.isArray(client[field])) missing.push(`settings.oauthClient.${field}`);
  }
  if (typeof client.application_type !== "string") missing.push("settings.oauthClient.application_type");
  for (const field of ["redirect_uris", "post_logout_redirect_uris"]) {
    const list = client[field];
    if (list !== undefined && (!Array.isArray(list) || list.some((u) => typeof u !== "string"))) {
      missing.push(`settings.oauthClient.${field}`);
    }
  }
  return missing;
}

async function putApp(
  request: Request,
  state: EmulatorState,
  id: string,
  stored: Json,
  headers: Record<string, string>,
) {
  let body: Json | undefined;
  try {
    body = obj(await request.json());
  } catch {
    body = undefined;
  }
  if (!body) return oktaError(400, "E0000003", "The request body was not well-formed.", headers);
  const missing = missingFields(body);
  if (missing.length > 0) {
    return oktaError(
      400,
      "E0000001",
      `Api validation failed: ${missing[0]}`,
      headers,
      missing.map((f) => `${f}: The field cannot be left blank.`),
    );
  }
  const replaced: Json = Object.fromEntries(Object.entries(body).filter(([k]) => !READ_ONLY.includes(k)));
  for (const k of READ_ONLY) if (k in stored) replaced[k] = stored[k];
  replaced.lastUpdated = new Date().toISOString();
  state.put(oktaKeys.app(id), replaced);
  return reply(200, replaced, headers);
}

export const oktaEmulator: ProviderEmulatorModule = {
  provider: "okta",
  matches: (host) => /^[a-z0-9-]+\.(okta|oktapreview|okta-emea)\.com$/i.test(host),
  isRead: (request) => request.method === "GET" && APP_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PUT" && APP_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const url = new URL(request.url);
    provisionDemoOrg(url.host, state);
    const headers = rateHeaders(url.host, Date.now());
    const apiToken = request.headers.get("authorization")?.match(/^SSWS (\S+)$/)?.[1];
    const token = apiToken ? state.get<OktaToken>(oktaKeys.token(apiToken)) : undefined;
    if (!token) return oktaError(401, "E0000011", "Invalid token provided", headers);
    const id = url.pathname.match(APP_PATH)?.[1];
    if (id === undefined || !["GET", "PUT"].includes(request.method)) {
      return oktaError(404, "E0000022", "The endpoint does not support the provided HTTP method", headers);
    }
    const appId = decodeURIComponent(id);
    const stored = state.get<Json>(oktaKeys.app(appId));
    if (!stored)
      return oktaError(404, "E0000007", `Not found: Resource not found: ${appId} (AppInstance)`, headers);
    if (request.method === "GET") return reply(200, stored, headers);
    if (token.readOnly) {
      return oktaError(
        403,
        "E0000006",
        "You do not have permission to perform the requested action",
        headers,
      );
    }
    return putApp(request, state, appId, stored, headers);
  },

  injectedError(status, nowMs) {
    const headers = rateHeaders("", nowMs, status === 429);
    if (status === 429) {
      return oktaError(429, "E0000047", "API call exceeded rate limit due to too many requests.", headers);
    }
    return oktaError(status, "E0000009", "Internal Server Error", headers);
  },
};

/** An OIDC web app as Okta returns it (the fields the emulator models). */
export function oktaOidcApp(
  id: string,
  oauthClient: { redirect_uris?: string[]; post_logout_redirect_uris?: string[] },
) {
  return {
    id,
    name: "oidc_client",
    label: "Previews",
    status: "ACTIVE",
    created: "2026-01-05T10:00:00.000Z",
    lastUpdated: "2026-01-05T10:00:00.000Z",
    signOnMode: "OPENID_CONNECT",
    credentials: {
      userNameTemplate: { template: "${source.login}", type: "BUILT_IN" },
      oauthClient: {
        client_id: id,
        token_endpoint_auth_method: "client_secret_basic",
        autoKeyRotation: true,
      },
    },
    settings: {
      app: {},
      oauthClient: {
        grant_types: ["authorization_code"],
        response_types: ["code"],
        application_type: "web",
        consent_method: "REQUIRED",
        ...oauthClient,
      },
    },
    _links: { self: { href: `https://example.okta.com/api/v1/apps/${id}` } },
  };
}
