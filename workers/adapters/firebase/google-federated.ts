/**
 * Keyless Google credentials (docs/design.md, "Federated connections"): the service's token for
 * this connection goes to Google STS (RFC 8693 token exchange at sts.googleapis.com/v1/token) for a
 * federated access token, which IAM credentials' generateAccessToken turns into the service
 * account's own access token. Shared by the gcs, firebase and google adapters; the result goes
 * through the shared token cache and the fleet's token object like any other token.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import { type AccessToken, type HttpContext, providerJson } from "../http";
import { googleHttp } from "./google-auth";

export const GOOGLE_STS_URL = "https://sts.googleapis.com/v1/token";

/** `//iam.googleapis.com/projects/<number>/locations/global/workloadIdentityPools/<pool>/providers/<p>` */
const providerResource =
  /^\/\/iam\.googleapis\.com\/projects\/\d{1,20}\/locations\/global\/workloadIdentityPools\/[a-z0-9-]{4,32}\/providers\/[a-z0-9-]{4,32}$/;

export const googleFederatedSchema = z.strictObject({
  /** The workload identity pool provider's full resource name (no `https:`). */
  audience: z
    .string()
    .regex(
      providerResource,
      "the pool provider's full resource name: //iam.googleapis.com/projects/<project number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>",
    ),
  /** The service account the federated principal impersonates (roles/iam.workloadIdentityUser). */
  serviceAccount: z
    .string()
    .regex(
      /^[a-z][a-z0-9-]{4,28}[a-z0-9]@[a-z][a-z0-9-]{4,28}[a-z0-9]\.iam\.gserviceaccount\.com$/,
      "a service account email: <name>@<project>.iam.gserviceaccount.com",
    ),
});
export type GoogleFederated = z.infer<typeof googleFederatedSchema>;

export const generateAccessTokenUrl = (serviceAccount: string) =>
  `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${encodeURIComponent(serviceAccount)}:generateAccessToken`;

/**
 * Google accepts the provider's full resource name as `aud`, with or without `https:` (its default
 * allowed audience); the `https:` form is what `--allowed-audiences` is documented with.
 */
export const federatedAudience = (federated: GoogleFederated) => `https:${federated.audience}`;

/** A service-account access token lives an hour (generateAccessToken's default and maximum). */
const LIFETIME_SECONDS = 3_600;

const stsResponseSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().optional() });
const generatedSchema = z.object({ accessToken: z.string().min(1), expireTime: z.string() });

/** A refusal of either step, naming the connection, the step and Google's own code. */
function exchangeFailure(connection: string, step: string, err: unknown): unknown {
  if (!(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") return err;
  return new SponsonError(
    "PROVIDER_ERROR",
    `connection "${connection}": federated credentials refused at ${step}: ${err.message}`,
    { ...err.detail, connection, step },
    { retriable: err.retriable },
  );
}

/** The exchange `withAccessToken` calls when the cache has no usable token. */
export async function fetchFederatedGoogleToken(
  ctx: HttpContext,
  provider: string,
  federated: GoogleFederated,
  scopes: string[],
): Promise<AccessToken> {
  const federation = ctx.federation;
  if (!federation)
    throw new SponsonError("INTERNAL", `${provider}: a federated connection without an issuer`);
  const connection = federation.subject.replace(/^sponson:connection:/, "");
  const spec = googleHttp(provider);
  let federatedToken: string;
  try {
    const subjectToken = await federation.assertion(federatedAudience(federated));
    const body = await providerJson(
      ctx,
      spec,
      {
        method: "POST",
        read: true,
        url: GOOGLE_STS_URL,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
          audience: federated.audience,
          scope: "https://www.googleapis.com/auth/cloud-platform",
          requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
          subject_token: subjectToken,
          subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
        }).toString(),
      },
      stsResponseSchema,
    );
    federatedToken = body.access_token;
  } catch (err) {
    throw exchangeFailure(connection, "Google STS (sts.googleapis.com)", err);
  }
  ctx.secrets.register(federatedToken);
  try {
    const body = await providerJson(
      ctx,
      spec,
      {
        method: "POST",
        read: true,
        url: generateAccessTokenUrl(federated.serviceAccount),
        headers: { authorization: `Bearer ${federatedToken}` },
        json: { scope: scopes, lifetime: `${LIFETIME_SECONDS}s` },
      },
      generatedSchema,
    );
    ctx.secrets.register(body.accessToken);
    const expiresAtMs = Date.parse(body.expireTime);
    const remaining = Number.isFinite(expiresAtMs)
      ? Math.floor((expiresAtMs - ctx.clock.now()) / 1000)
      : LIFETIME_SECONDS;
    return {
      accessToken: body.accessToken,
      expiresInSeconds: Math.max(1, Math.min(remaining, LIFETIME_SECONDS)),
    };
  } catch (err) {
    throw exchangeFailure(
      connection,
      `IAM credentials generateAccessToken for ${federated.serviceAccount}`,
      err,
    );
  }
}
