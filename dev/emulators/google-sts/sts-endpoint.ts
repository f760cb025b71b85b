/**
 * POST sts.googleapis.com/v1/token (Security Token Service API v1, token exchange, RFC 8693): a
 * third-party OIDC token for a pool provider's federated access token. The token is checked as
 * Google checks it (../oidc-assertions.ts: the issuer's discovery and JWKS, RS256 by kid, exp,
 * aud = the provider's full resource name with or without `https:` unless `--allowed-audiences`
 * says otherwise), then the attribute condition on `assertion.sub`. Refusals carry STS's OAuth
 * error body `{error, error_description}`.
 */
import { decodeJwt } from "jose";
import type { EmulatorState } from "../emulator";
import { CLOUD_PLATFORM, issueGoogleToken } from "../google/access-token";
import { googleJson } from "../google/responses";
import { oauthError } from "../google/token-endpoint";
import { checkAssertion } from "../oidc-assertions";
import { provisionDemoProvider } from "./demo";
import { googleStsKeys, PROVIDER_RESOURCE, principalOf, type WorkloadIdentityProvider } from "./state";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
const SUBJECT_TOKEN_TYPES = [
  "urn:ietf:params:oauth:token-type:jwt",
  "urn:ietf:params:oauth:token-type:id_token",
];
export const FEDERATED_TOKEN_LIFETIME_SECONDS = 3_599;

/** Google's client libraries send a form; gcloud and some callers JSON. Both are accepted. */
async function fieldsOf(request: Request): Promise<URLSearchParams> {
  const text = await request.text();
  if (!(request.headers.get("content-type") ?? "").includes("json")) return new URLSearchParams(text);
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return new URLSearchParams(
      Object.entries(body).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), String(v)]),
    );
  } catch {
    return new URLSearchParams();
  }
}

const invalidValue = (field: string, hint = "") =>
  oauthError(400, "invalid_request", `Invalid value for "${field}".${hint}`);

export async function exchangeToken(
  request: Request,
  state: EmulatorState,
  outbound: typeof fetch,
): Promise<Response> {
  const form = await fieldsOf(request);
  if (form.get("grant_type") !== TOKEN_EXCHANGE) return invalidValue("grant_type");
  if (form.get("requested_token_type") !== ACCESS_TOKEN_TYPE) return invalidValue("requested_token_type");
  if (!SUBJECT_TOKEN_TYPES.includes(form.get("subject_token_type") ?? ""))
    return invalidValue("subject_token_type");
  const audience = form.get("audience") ?? "";
  if (!PROVIDER_RESOURCE.test(audience)) {
    return invalidValue(
      "audience",
      " This value should be the full resource name of the Identity Provider. See https://cloud.google.com/iam/docs/reference/sts/rest/v1/TopLevel/token for the list of possible formats.",
    );
  }
  provisionDemoProvider(audience, state);
  const provider = state.get<WorkloadIdentityProvider>(googleStsKeys.provider(audience));
  if (!provider || provider.disabled) {
    return oauthError(
      400,
      "invalid_target",
      `The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn't exist.`,
    );
  }
  const token = form.get("subject_token") ?? "";
  let presented = "";
  let presentedIssuer = "";
  try {
    const claims = decodeJwt(token);
    presented = String(claims.sub ?? "");
    presentedIssuer = String(claims.iss ?? "");
  } catch {
    return oauthError(400, "invalid_grant", "Unable to parse the ID Token.");
  }
  // The attribute condition names the subjects let in; without one, any subject maps to a principal.
  const allowed = !provider.subjects || provider.subjects.includes(presented);
  // The demo provider's extra issuers (dev-only, ./state.ts) are checked like its own.
  const issuer = provider.issuers?.includes(presentedIssuer) ? presentedIssuer : provider.issuer;
  const check = await checkAssertion(
    token,
    {
      issuer,
      subject: allowed ? presented : (provider.subjects?.[0] ?? ""),
      audiences: provider.allowedAudiences ?? [`https:${audience}`, audience],
    },
    outbound,
    Date.now(),
  );
  if (!check.ok) return refusal(check.refusal, provider, check.presented ?? "");
  const nowMs = Date.now();
  const federated = await issueGoogleToken({
    sub: principalOf(audience, presented),
    scope: form.get("scope") || CLOUD_PLATFORM,
    iat: nowMs,
    exp: nowMs + FEDERATED_TOKEN_LIFETIME_SECONDS * 1000,
  });
  return googleJson(200, {
    access_token: federated,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: "Bearer",
    expires_in: FEDERATED_TOKEN_LIFETIME_SECONDS,
  });
}

function refusal(kind: string, provider: WorkloadIdentityProvider, presented: string): Response {
  switch (kind) {
    case "issuer":
      return oauthError(
        400,
        "invalid_grant",
        `The issuer in ID Token ${presented} does not match the expected ones: ${provider.issuer}.`,
      );
    case "audience":
      return oauthError(
        400,
        "invalid_grant",
        `The audience in ID Token [${presented}] does not match the expected audience.`,
      );
    case "expired":
      return oauthError(400, "invalid_grant", "The ID Token has expired.");
    case "unknown-kid":
    case "signature":
      return oauthError(
        400,
        "invalid_grant",
        "Invalid JWT signature: no key in the issuer's JWKS verifies it.",
      );
    case "discovery":
      return oauthError(
        400,
        "invalid_grant",
        `Unable to retrieve the OpenID configuration or the JWKS of issuer ${provider.issuer}.`,
      );
    case "subject":
      return oauthError(
        400,
        "unauthorized_client",
        "The given credential is rejected by the attribute condition.",
      );
    default:
      return oauthError(400, "invalid_grant", "Unable to parse the ID Token.");
  }
}
