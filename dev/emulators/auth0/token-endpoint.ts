/**
 * POST /oauth/token, client-credentials grant. Accepts JSON or form bodies like
 * Auth0. Issued tokens are opaque here (Auth0 issues JWTs; clients must treat them as opaque).
 */
import { z } from "zod";
import type { EmulatorState } from "../emulator";
import { assertionRefusal } from "./private-key-jwt";
import { json, oauthError } from "./responses";
import {
  auth0Keys,
  type IssuedToken,
  type M2mClient,
  m2mClientSchema,
  managementAudience,
  TOKEN_LIFETIME_SECONDS,
} from "./state";

const tokenRequestSchema = z.object({
  grant_type: z.string(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  client_assertion_type: z.string().optional(),
  client_assertion: z.string().optional(),
  audience: z.string().optional(),
});

async function readForm(request: Request): Promise<Record<string, unknown> | null> {
  const type = request.headers.get("content-type") ?? "";
  try {
    if (type.includes("application/x-www-form-urlencoded")) {
      const form = await request.formData();
      return Object.fromEntries([...form].filter((e): e is [string, string] => typeof e[1] === "string"));
    }
    const body: unknown = await request.json();
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function sameSecret(a: string, b: string): boolean {
  // Constant time over the longer length: the emulator should not teach a timing leak.
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export async function issueToken(
  request: Request,
  state: EmulatorState,
  headers: Record<string, string>,
  nowMs: number,
  outbound: typeof fetch,
): Promise<Response> {
  const host = new URL(request.url).host;
  const parsed = tokenRequestSchema.safeParse(await readForm(request));
  if (!parsed.success) {
    return oauthError(400, "invalid_request", "Missing required parameter: grant_type", headers);
  }
  const form = parsed.data;
  if (form.grant_type !== "client_credentials") {
    return oauthError(
      403,
      "unauthorized_client",
      `Grant type '${form.grant_type}' not allowed for the client.`,
      headers,
    );
  }
  const stored = form.client_id ? state.get<M2mClient>(auth0Keys.m2m(form.client_id)) : undefined;
  const m2m = stored === undefined ? undefined : m2mClientSchema.parse(stored);
  if (form.client_assertion !== undefined || form.client_assertion_type !== undefined) {
    const refused = await assertionRefusal(form, m2m, { host, state, outbound, nowMs, headers });
    if (refused) return refused;
  } else if (
    !m2m ||
    !form.client_secret ||
    m2m.clientSecret === undefined ||
    !sameSecret(m2m.clientSecret, form.client_secret)
  ) {
    return oauthError(401, "access_denied", "Unauthorized", headers);
  }
  if (!m2m) return oauthError(401, "access_denied", "Unauthorized", headers);
  if (form.audience === undefined) {
    return oauthError(
      403,
      "access_denied",
      "No audience parameter was provided, and no default audience has been configured",
      headers,
    );
  }
  // The Management API, or another API of the tenant: each token is for the one it names.
  if (form.audience !== managementAudience(host) && !state.get<boolean>(auth0Keys.api(form.audience))) {
    return oauthError(403, "access_denied", `Service not enabled within domain: ${form.audience}`, headers);
  }
  const accessToken = `emu.${crypto.randomUUID().replaceAll("-", "")}`;
  state.put<IssuedToken>(auth0Keys.token(accessToken), {
    clientId: form.client_id as string,
    scopes: m2m.scopes,
    audience: form.audience,
    expiresAt: nowMs + TOKEN_LIFETIME_SECONDS * 1000,
  });
  return json(
    200,
    {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: TOKEN_LIFETIME_SECONDS,
      scope: m2m.scopes.join(" "),
    },
    headers,
  );
}
