/** The Microsoft Entra ID provider block and line params (Microsoft Graph v1.0, application). */
import { z } from "zod";
import { canonicalHost } from "../../../shared/canonical-identity";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";

const guid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "a GUID");

const tenantSchema = z.union([
  guid,
  z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "a tenant id or domain"),
]);

/** The audience Entra requires of a federated identity credential's assertion. */
export const ENTRA_FEDERATION_AUDIENCE = "api://AzureADTokenExchange";

export const entraConfigSchema = z
  .strictObject({
    type: z.literal("entra"),
    /** The directory: its id (GUID) or a verified domain such as contoso.onmicrosoft.com. */
    tenant: tenantSchema,
    /** The app registration that signs in (client credentials) with Application.ReadWrite.OwnedBy or .All. */
    clientId: guid.optional(),
    clientSecret: z.string().min(1).optional(),
    /**
     * Keyless (docs/design.md, "Federated connections"): the app registration has a federated
     * identity credential for the service's issuer and this connection's subject.
     */
    federated: z.strictObject({ tenantId: tenantSchema, clientId: guid }).optional(),
  })
  .refine((c) => (c.federated ? c.clientSecret === undefined : c.clientId && c.clientSecret), {
    message: "either clientId and clientSecret, or federated { tenantId, clientId }",
  });
export type EntraConfig = z.infer<typeof entraConfigSchema>;

export const ENTRA_KINDS = ["web", "spa", "publicClient"] as const;
export type EntraKind = (typeof ENTRA_KINDS)[number];

/** How long a Graph write may be missing from reads, as far as the writer is concerned. */
export const ENTRA_WRITE_VISIBILITY_MS = 15 * 60_000;

/** Graph's limit on one redirect URI (docs/adapters.md, "Microsoft Entra ID"). */
export const MAX_REDIRECT_URI_CHARS = 256;

export const entraLineParamsSchema = z.strictObject({
  /** The application's object id (not its client id); it ends up in a URL path. */
  application: guid,
  kind: z.enum(ENTRA_KINDS),
  url: z
    .string()
    .max(MAX_REDIRECT_URI_CHARS, `at most ${MAX_REDIRECT_URI_CHARS} characters (Entra's limit)`)
    .regex(/^[a-z][a-z0-9+.-]*:\/\/?[^\s,]+$/i, "a URI without spaces or commas"),
});

/** `entra:<tenant>:application:<object id>` (docs/design.md, "Vocabulary"). */
export function entraApplicationIdentity(provider: ConnectionSettings, application: string): string {
  if (typeof provider.tenant !== "string") {
    throw new SponsonError("VALIDATION", "entra connection: `tenant` must be set in its config");
  }
  return `entra:${canonicalHost(provider.tenant)}:application:${application.toLowerCase()}`;
}
