/** The Keycloak connection and line params (Keycloak 26 Admin REST API). */
import { z } from "zod";
import { canonicalHost } from "../../../shared/canonical-identity";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";

const realmName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, "a realm name");

export const keycloakConfigSchema = z.strictObject({
  type: z.literal("keycloak"),
  /** The server's host (and port), e.g. keycloak.acme.com: no scheme, no path, no `/auth` prefix. */
  host: z
    .string()
    .max(253)
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d{1,5})?$/i, "a host name such as keycloak.acme.com"),
  /** The realm whose clients the ops edit. */
  realm: realmName,
  /** The realm of the service-account client (default: `realm`; `master` reaches every realm). */
  tokenRealm: realmName.optional(),
  /** A confidential client with service accounts on and realm-management's manage-clients role. */
  clientId: z.string().min(1).max(255),
  clientSecret: z.string().min(1),
});
export type KeycloakConfig = z.infer<typeof keycloakConfigSchema>;

/** One redirect URI or origin; `##` would split the post-logout attribute, so it is refused. */
const entry = z
  .string()
  .min(1)
  .max(2_000)
  .regex(/^[^\s]+$/, "no whitespace")
  .refine((u) => !u.includes("##"), "no `##` (the post-logout attribute's separator)");

export const keycloakLineParamsSchema = z.strictObject({
  /** The client's `clientId` (the OAuth client_id), not its internal id. */
  client: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,254}$/, "a Keycloak clientId"),
  url: entry,
});

/** `keycloak:<host>:realm:<realm>:client:<clientId>`, the host canonical (`:443` dropped), from the connection's settings. */
export function keycloakClientIdentity(connection: ConnectionSettings, client: string): string {
  if (typeof connection.host !== "string" || typeof connection.realm !== "string") {
    throw new SponsonError("VALIDATION", "keycloak connection: `host` and `realm` must be set in its config");
  }
  return `keycloak:${canonicalHost(connection.host)}:realm:${connection.realm}:client:${client}`;
}
