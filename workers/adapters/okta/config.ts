/** The Okta provider block and line params (Okta Apps API reference). */
import { z } from "zod";
import { canonicalHost } from "../../../shared/canonical-identity";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";
import { privateKeyJwtSchema } from "../private-key-jwt";

export const oktaConfigSchema = z
  .strictObject({
    type: z.literal("okta"),
    /** The org host, e.g. acme.okta.com (no scheme, no path). */
    domain: z
      .string()
      .max(253)
      .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "an Okta org host such as acme.okta.com"),
    /** An API token (sent as `SSWS <token>`) with okta.apps.read and okta.apps.manage. */
    apiToken: z.string().min(1).optional(),
    /**
     * Keyless (docs/design.md, "Federated connections"): an API service app granted okta.apps.read
     * and okta.apps.manage, authenticating with the federation key's public half (private_key_jwt).
     */
    privateKeyJwt: privateKeyJwtSchema.optional(),
  })
  .refine((c) => (c.privateKeyJwt ? c.apiToken === undefined : c.apiToken !== undefined), {
    message: "either apiToken or privateKeyJwt { clientId, kid? }",
  });
export type OktaConfig = z.infer<typeof oktaConfigSchema>;

export const oktaLineParamsSchema = z.strictObject({
  /** The OIDC app's id (e.g. 0oa1b2c3d4…); it ends up in a URL path. */
  app: z.string().regex(/^[A-Za-z0-9]{1,64}$/, "an Okta app id"),
  url: z
    .string()
    .max(2_000)
    .regex(/^[a-z][a-z0-9+.-]*:\/\/[^\s,]+$/i, "a URI without spaces or commas"),
});

/** `okta:<org>:app:<app id>` (docs/design.md, "Vocabulary"), from the connection's settings. */
export function oktaAppIdentity(provider: ConnectionSettings, app: string): string {
  if (typeof provider.domain !== "string") {
    throw new SponsonError(
      "VALIDATION",
      "okta connection: `domain` must be set in its config as a host name",
    );
  }
  return `okta:${canonicalHost(provider.domain)}:app:${app}`;
}
