/**
 * How a gcs, firebase or google connection gets its access token: a service-account key file
 * (./google-auth.ts), or keyless, federated (./google-federated.ts, docs/design.md, "Federated
 * connections"). Exactly one of the two; the config schemas of the three adapters share these fields.
 */
import type { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import { type HttpContext, withAccessToken } from "../http";
import {
  CLOUD_PLATFORM_SCOPE,
  type ServiceAccountKey,
  serviceAccountKeyJsonSchema,
  withServiceAccountKeyToken,
} from "./google-auth";
import {
  fetchFederatedGoogleToken,
  type GoogleFederated,
  generateAccessTokenUrl,
  googleFederatedSchema,
} from "./google-federated";

/** The credential fields of a Google block: spread into its strictObject, then `eitherCredential`. */
export const googleCredentialFields = {
  /** The key file's JSON, from the Worker secret the connection names. */
  serviceAccountKey: serviceAccountKeyJsonSchema.optional(),
  federated: googleFederatedSchema.optional(),
};

export interface GoogleCredentials {
  serviceAccountKey?: ServiceAccountKey | undefined;
  federated?: GoogleFederated | undefined;
}

/**
 * A refinement for the block: one credential, never both, never none. It runs even when a field
 * failed (`when`), so `sponson config check` reports "not both" while the key is only a stand-in.
 */
export const eitherCredential = [
  (config: GoogleCredentials, ctx: z.RefinementCtx): void => {
    if (typeof config !== "object" || config === null) return;
    if ((config.serviceAccountKey === undefined) !== (config.federated === undefined)) return;
    ctx.addIssue({
      code: "custom",
      path: [config.federated ? "federated" : "serviceAccountKey"],
      message: config.federated
        ? "federated or serviceAccountKey, not both: a federated connection holds no key"
        : "missing: either serviceAccountKey (a secrets field naming the Worker secret with the key file) or federated { audience, serviceAccount }",
    });
  },
  { when: () => true },
] as const;

/** Runs `call` with an access token of the connection's service account, for `scopes`. */
export function withGoogleToken<T>(
  ctx: HttpContext,
  provider: string,
  config: GoogleCredentials,
  call: (token: string) => Promise<T>,
  scopes: string[] = [CLOUD_PLATFORM_SCOPE],
): Promise<T> {
  const { federated, serviceAccountKey } = config;
  if (serviceAccountKey) return withServiceAccountKeyToken(ctx, provider, serviceAccountKey, call);
  if (!federated) throw new SponsonError("INTERNAL", `${provider}: neither a key nor federated credentials`);
  return withAccessToken(
    ctx,
    {
      endpoint: generateAccessTokenUrl(federated.serviceAccount),
      clientId: federated.serviceAccount,
      // No secret: the issuer and the connection's subject name the credential in the cache key.
      clientSecret: `federated:${ctx.federation?.issuer}:${ctx.federation?.subject}`,
      requested: { audience: federated.audience, scope: scopes.join(" ") },
      fetchToken: () => fetchFederatedGoogleToken(ctx, provider, federated, scopes),
    },
    call,
  );
}
