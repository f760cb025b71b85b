/**
 * The Cloudflare Turnstile provider block and line params (Cloudflare API reference, Turnstile
 * widgets; Turnstile docs, "Hostname management").
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";

export const turnstileConfigSchema = z.strictObject({
  type: z.literal("turnstile"),
  accountId: z.string().regex(/^[0-9a-f]{32}$/, "a Cloudflare account id"),
  /** An API token with "Turnstile Sites Write" (or "Account Settings Write") on the account. */
  apiToken: z.string().min(1),
});
export type TurnstileConfig = z.infer<typeof turnstileConfigSchema>;

/**
 * A widget's hostnames are bare host names: no scheme, port, path or wildcard (Cloudflare refuses
 * them), lowercase, as a browser reads them. One label (`com`) is taken here so that the URL shape
 * check, not this schema, says why a public suffix is refused (shared/url-shape.ts).
 */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export const turnstileLineParamsSchema = z.strictObject({
  /** The widget's sitekey (`0x4AAA…`; at most 32 characters, as the API's path takes it). */
  sitekey: z.string().regex(/^[0-9A-Za-z_-]{1,32}$/, "a Turnstile sitekey"),
  hostname: z.string().regex(HOSTNAME, "a bare host name: no scheme, port, path or wildcard, lowercase"),
});
export type TurnstileLineParams = z.infer<typeof turnstileLineParamsSchema>;

/** `turnstile:<account>:widget:<sitekey>`, from the connection's settings. */
export function turnstileWidgetIdentity(provider: ConnectionSettings, sitekey: string): string {
  if (typeof provider.accountId !== "string") {
    throw new SponsonError("VALIDATION", "turnstile connection: `accountId` must be set in its config");
  }
  return `turnstile:${provider.accountId}:widget:${sitekey}`;
}
