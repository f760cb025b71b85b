/** The Cloudflare R2 (REST API) provider block (Cloudflare API reference, R2 bucket CORS). */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";

export const r2ConfigSchema = z.strictObject({
  type: z.literal("r2"),
  accountId: z.string().regex(/^[0-9a-f]{32}$/, "a Cloudflare account id"),
  /** An API token with R2 write permission. */
  apiToken: z.string().min(1),
  jurisdiction: z.enum(["eu", "fedramp"]).optional(),
});
export type R2Config = z.infer<typeof r2ConfigSchema>;

/** `r2:<account>:<bucket>:cors`, from the connection's settings. */
export function r2CorsIdentity(provider: ConnectionSettings, bucket: string): string {
  if (typeof provider.accountId !== "string") {
    throw new SponsonError("VALIDATION", "r2 connection: `accountId` must be set in its config");
  }
  return `r2:${provider.accountId}:${bucket}:cors`;
}
