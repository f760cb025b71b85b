/**
 * The Kinde Management API emulator (PROVIDERS.md §3): /oauth2/token (client credentials, form
 * body) and the item-level URL endpoints of an application. POST adds, DELETE removes the
 * comma-separated `urls`, PUT replaces all; write answers are `{code:"OK", message:"Success"}`.
 * Errors are `{errors:[{code, message}]}`; a 429 carries only RateLimit-Reset (seconds).
 * Storage keys: `m2m:<client id>` → KindeM2m; `token:<t>` → {scopes, expiresAt};
 * `app:<id>` → KindeApp.
 */
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { provisionDemoBusiness } from "./demo";

export interface KindeM2m {
  clientSecret: string;
  scopes: string[];
}
export interface KindeApp {
  redirect_urls: string[];
  logout_urls: string[];
}
interface IssuedToken {
  scopes: string[];
  expiresAt: number;
}

export const kindeKeys = {
  m2m: (id: string) => `m2m:${id}`,
  token: (t: string) => `token:${t}`,
  app: (id: string) => `app:${id}`,
} as const;

export const KINDE_ALL_SCOPES = [
  "read:applications_redirect_uris",
  "create:applications_redirect_uris",
  "update:applications_redirect_uris",
  "delete:applications_redirect_uris",
  "read:application_logout_uris",
  "create:application_logout_uris",
  "update:application_logout_uris",
  "delete:application_logout_uris",
];

const LIST_PATH = /^\/api\/v1\/applications\/([^/]+)\/(auth_redirect_urls|auth_logout_urls)$/;
const VERBS: Record<string, string> = { GET: "read", POST: "create", PUT: "update", DELETE: "delete" };

function reply(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
export const kindeError = (
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) => reply(status, { errors: [{ code, message }] }, headers);
const OK = () => reply(200, { code: "OK", message: "Success" });

async function issueToken(request: Request, state: EmulatorState): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const id = form.get("client_id") ?? "";
  const m2m = state.get<KindeM2m>(kindeKeys.m2m(id));
  if (!m2m || m2m.clientSecret !== form.get("client_secret")) {
    return reply(401, {
      error: "invalid_client",
      error_description:
        "Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).",
    });
  }
  if (form.get("audience") !== `https://${new URL(request.url).host}/api`) {
    return reply(400, {
      error: "invalid_request",
      error_description: "The audience is not valid for this client.",
    });
  }
  const token = `kinde.${crypto.randomUUID().replaceAll("-", "")}`;
  state.put<IssuedToken>(kindeKeys.token(token), { scopes: m2m.scopes, expiresAt: Date.now() + 86_400_000 });
  return reply(200, {
    access_token: token,
    expires_in: 86_399,
    scope: m2m.scopes.join(" "),
    token_type: "bearer",
  });
}

async function urlsFrom(request: Request): Promise<string[] | null> {
  try {
    const body = (await request.json()) as { urls?: unknown };
    return Array.isArray(body.urls) && body.urls.every((u) => typeof u === "string") ? body.urls : null;
  } catch {
    return null;
  }
}

async function handleList(
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
    return OK();
  }
  const urls = await urlsFrom(request);
  if (!urls) return kindeError(400, "INVALID_URLS", "urls must be an array of strings");
  const now = state.get<KindeApp>(kindeKeys.app(appId)) ?? app;
  // POST adds (an URL already there is kept once [U]); PUT replaces everything.
  const next =
    request.method === "PUT" ? urls : [...now[field], ...urls.filter((u) => !now[field].includes(u))];
  state.put(kindeKeys.app(appId), { ...now, [field]: next });
  return OK();
}

export const kindeEmulator: ProviderEmulatorModule = {
  provider: "kinde",
  matches: (host) => /^[a-z0-9-]+\.kinde\.com$/i.test(host),
  isRead: (request) => request.method === "GET" && LIST_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method !== "GET" && LIST_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const url = new URL(request.url);
    provisionDemoBusiness(url.host, state);
    if (url.pathname === "/oauth2/token" && request.method === "POST") return issueToken(request, state);
    const match = url.pathname.match(LIST_PATH);
    const verb = VERBS[request.method];
    if (!match?.[1] || !match[2] || !verb)
      return kindeError(404, "ROUTE_NOT_FOUND", "The requested API route does not exist");
    const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/i)?.[1];
    const token = bearer ? state.get<IssuedToken>(kindeKeys.token(bearer)) : undefined;
    if (!token || token.expiresAt <= Date.now()) {
      return kindeError(403, "INVALID_CREDENTIALS", "Invalid credentials used to access API");
    }
    const scope = `${verb}:${match[2] === "auth_redirect_urls" ? "applications_redirect_uris" : "application_logout_uris"}`;
    if (!token.scopes.includes(scope))
      return kindeError(403, "FORBIDDEN", `Missing required scope: ${scope}`);
    return handleList(request, state, decodeURIComponent(match[1]), match[2]);
  },

  injectedError(status) {
    if (status === 429)
      return kindeError(429, "TOO_MANY_REQUESTS", "Too many requests", { "ratelimit-reset": "3" });
    return kindeError(status, "INTERNAL_SERVER_ERROR", "Internal server error");
  },
};
