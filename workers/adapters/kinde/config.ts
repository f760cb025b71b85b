/** The Kinde provider block and line params (Kinde Management API reference). */
import { z } from "zod";
import { canonicalHost } from "../../../shared/canonical-identity";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";

export const kindeConfigSchema = z.strictObject({
  type: z.literal("kinde"),
  /** The business's kinde.com host, e.g. acme.kinde.com: tokens always come from there. */
  domain: z
    .string()
    .max(253)
    .regex(/^[a-z0-9-]+\.kinde\.com$/i, "a <business>.kinde.com host"),
  /** A machine-to-machine application authorized for the Management API. */
  clientId: z.string().min(1).max(128),
  clientSecret: z.string().min(1),
});
export type KindeConfig = z.infer<typeof kindeConfigSchema>;

export const kindeLineParamsSchema = z.strictObject({
  app: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "a Kinde application id"),
  /** DELETE takes a comma-separated list, so a URL with a comma could not be removed alone. */
  url: z
    .string()
    .max(2_000)
    .regex(/^[a-z][a-z0-9+.-]*:\/\/[^\s,]+$/i, "a URL without spaces or commas"),
});

/** `kinde:<business host>:app:<application id>`, from the connection's settings. */
export function kindeAppIdentity(connection: ConnectionSettings, app: string): string {
  if (typeof connection.domain !== "string") {
    throw new SponsonError(
      "VALIDATION",
      "kinde connection: `domain` must be set in its config as a host name",
    );
  }
  return `kinde:${canonicalHost(connection.domain)}:app:${app}`;
}
