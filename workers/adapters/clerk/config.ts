/** The Clerk connection and line params (Clerk Backend API, `https://api.clerk.com/v1`). */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";

/** A Clerk instance id as the Dashboard and `GET /v1/instance` show it. */
const instanceId = z.string().regex(/^ins_[A-Za-z0-9]{1,64}$/, "a Clerk instance id (ins_…)");

export const clerkConfigSchema = z.strictObject({
  type: z.literal("clerk"),
  /**
   * The instance the secret key belongs to: the parent identity of its `allowed_origins`. Checked
   * against `GET /v1/instance` on every read, so a key of another instance is never written under
   * this instance's lease.
   */
  instance: instanceId,
  /** The instance's secret key (`sk_test_…` development, `sk_live_…` production), sent as Bearer. */
  secretKey: z.string().regex(/^sk_[A-Za-z0-9_]+$/, "a Clerk secret key (sk_…)"),
});
export type ClerkConfig = z.infer<typeof clerkConfigSchema>;

/** `https://…` or a custom scheme (`my-app://oauth-callback`), as Clerk accepts for redirect URLs. */
export const clerkRedirectUrlParamsSchema = z.strictObject({
  url: z
    .string()
    .max(2_000)
    .regex(/^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i, "https://… or a custom scheme such as my-app://callback")
    .refine((u) => !/^http:\/\//i.test(u), "Clerk takes https:// or a custom scheme, not http://"),
});

/** One origin: scheme and host (and port), no path (`https://pr-1.example.com`, `capacitor://localhost`). */
export const clerkAllowedOriginParamsSchema = z.strictObject({
  origin: z
    .string()
    .max(2_000)
    .regex(/^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+$/i, "an origin: scheme://host[:port], no path"),
});

/** `clerk:instance:<ins_…>`, from the connection's settings (never the key). */
export function clerkInstanceIdentity(connection: ConnectionSettings): string {
  if (typeof connection.instance !== "string" || connection.instance === "") {
    throw new SponsonError("VALIDATION", "clerk connection: `instance` (ins_…) must be set in its config");
  }
  return `clerk:instance:${connection.instance}`;
}
