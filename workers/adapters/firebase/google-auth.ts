/**
 * Google service-account credentials on Workers (Google OAuth 2.0 for server-to-server applications): an
 * RS256 JWT signed with jose (iss = the account, scope, aud = the token endpoint), exchanged at
 * oauth2.googleapis.com/token with the jwt-bearer grant. Shared by the Firebase and GCS adapters; tokens go
 * through the shared cache (keyed by endpoint, account and a fingerprint of the private key).
 */
import { importPKCS8, SignJWT } from "jose";
import { z } from "zod";
import {
  type HttpContext,
  type ProviderHttpSpec,
  providerJson,
  secondsResetHeader,
  withAccessToken,
} from "../http";

export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const ASSERTION_LIFETIME_SECONDS = 3_600;

/** The JSON key file of a service account, as downloaded (only the fields we use). */
export const serviceAccountKeySchema = z.object({
  type: z.literal("service_account"),
  client_email: z.email(),
  private_key: z.string().includes("PRIVATE KEY"),
  private_key_id: z.string().optional(),
});
export type ServiceAccountKey = z.infer<typeof serviceAccountKeySchema>;

/** A secret holding the key file's JSON text, parsed and checked. */
export const serviceAccountKeyJsonSchema = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "not JSON" });
      return z.NEVER;
    }
  })
  .pipe(serviceAccountKeySchema);

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Every Google API answers `{error:{code, message, status, errors?}}`; the token endpoint OAuth's shape. */
export function googleHttp(provider: string): ProviderHttpSpec {
  return {
    provider,
    retryAfterMs: secondsResetHeader("retry-after"),
    describeError(body) {
      if (typeof body !== "object" || body === null) return { message: str(body) || undefined };
      const error = (body as { error?: unknown; error_description?: unknown }).error;
      if (typeof error === "string") {
        return { message: str((body as { error_description?: unknown }).error_description), code: error };
      }
      const e = (error ?? {}) as {
        message?: unknown;
        status?: unknown;
        errors?: Array<{ reason?: unknown }>;
      };
      return { message: str(e.message), code: str(e.errors?.[0]?.reason) ?? str(e.status) };
    },
  };
}

const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().positive(),
  token_type: z.string(),
});

/** Runs `call` with a cloud-platform access token for `key` (a connection's key file). */
export function withServiceAccountKeyToken<T>(
  ctx: HttpContext,
  provider: string,
  key: ServiceAccountKey,
  call: (token: string) => Promise<T>,
): Promise<T> {
  // The block's secret is the whole key file; its private key alone must never show either.
  ctx.secrets.register(key.private_key);
  const source = {
    endpoint: GOOGLE_TOKEN_URL,
    clientId: key.client_email,
    clientSecret: key.private_key,
    async fetchToken() {
      const nowSeconds = Math.floor(ctx.clock.now() / 1000);
      const signingKey = await importPKCS8(key.private_key, "RS256");
      const header = key.private_key_id
        ? { alg: "RS256", typ: "JWT", kid: key.private_key_id }
        : { alg: "RS256", typ: "JWT" };
      const assertion = await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
        .setProtectedHeader(header)
        .setIssuer(key.client_email)
        .setSubject(key.client_email)
        .setAudience(GOOGLE_TOKEN_URL)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + ASSERTION_LIFETIME_SECONDS)
        .sign(signingKey);
      const body = await providerJson(
        ctx,
        googleHttp(provider),
        {
          method: "POST",
          read: true,
          url: GOOGLE_TOKEN_URL,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
            assertion,
          }).toString(),
        },
        tokenResponseSchema,
      );
      return { accessToken: body.access_token, expiresInSeconds: body.expires_in };
    },
  };
  return withAccessToken(ctx, source, call);
}
