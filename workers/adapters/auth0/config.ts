/**
 * The Auth0 provider block and line params (docs/design.md, "Vocabulary"; Auth0 Management API v2
 * reference).
 */
import { z } from "zod";
import { canonicalHost } from "../../../shared/canonical-identity";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";
import { privateKeyJwtSchema } from "../private-key-jwt";

const hostnameSchema = z
  .string()
  .max(253)
  .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "a tenant host name such as acme.us.auth0.com (no scheme, no path)");

/** The resolved block: `clientSecret` is the value the `{ "secret": … }` reference resolved to. */
export const auth0ConfigSchema = z
  .strictObject({
    type: z.literal("auth0"),
    /** Tenant (or custom) domain the API is called on. */
    domain: hostnameSchema,
    /** The machine-to-machine application that holds read:clients and update:clients. */
    clientId: z.string().min(1).max(128).optional(),
    clientSecret: z.string().min(1).optional(),
    /**
     * Keyless (docs/design.md, "Federated connections"): the M2M application authenticates with
     * Private Key JWT, the public half of the service's federation key registered as its credential.
     */
    privateKeyJwt: privateKeyJwtSchema.optional(),
    /** Defaults to https://{domain}/api/v2/; set it when `domain` is a custom domain. */
    audience: z.url().optional(),
  })
  .superRefine((c, ctx) => {
    // Each problem at the field to fix, so `sponson config check` points at it.
    const message = "either clientId and clientSecret, or privateKeyJwt { clientId, kid? }";
    if (c.privateKeyJwt) {
      if (c.clientSecret !== undefined) ctx.addIssue({ code: "custom", message, path: ["clientSecret"] });
      return;
    }
    if (!c.clientId) ctx.addIssue({ code: "custom", message, path: ["clientId"] });
    else if (!c.clientSecret) ctx.addIssue({ code: "custom", message, path: ["clientSecret"] });
  });
export type Auth0Config = z.infer<typeof auth0ConfigSchema>;

export const auth0LineParamsSchema = z.strictObject({
  /** Client id of the application whose list is edited; it ends up in a URL path. */
  client: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "an Auth0 client id"),
  /** The list entry; Auth0 allows one left-most wildcard label, e.g. https://*.example.com. */
  url: z
    .string()
    .max(2_000)
    .regex(/^https?:\/\/[^\s,]+$/, "an http(s) URL without spaces or commas"),
});
export type Auth0LineParams = z.infer<typeof auth0LineParamsSchema>;

/**
 * The lock identity of one application (docs/design.md, "Vocabulary"): `auth0:<domain>:client:<client id>`.
 * Pure, from the connection's settings; the domain is never a secret.
 */
export function auth0ClientIdentity(provider: ConnectionSettings, client: string): string {
  const domain = provider.domain;
  if (typeof domain !== "string") {
    throw new SponsonError(
      "VALIDATION",
      "auth0 connection: `domain` must be set in its config as a host name",
    );
  }
  return `auth0:${canonicalHost(domain)}:client:${client}`;
}
