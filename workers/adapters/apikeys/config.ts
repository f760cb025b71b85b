/**
 * The Google API key provider block and line params (API Keys API v2 reference,
 * projects.locations.keys). A line names one HTTP-referrer pattern of one key's website
 * restriction (`restrictions.browserKeyRestrictions.allowedReferrers`).
 */
import { z } from "zod";
import { eitherCredential, googleCredentialFields } from "../firebase/google-credentials";

/** A key file, or federated (docs/design.md, "Federated connections"). */
export const apiKeysConfigSchema = z
  .strictObject({ type: z.literal("googleapikey"), ...googleCredentialFields })
  .superRefine(...eitherCredential);
export type ApiKeysConfig = z.infer<typeof apiKeysConfigSchema>;

/** A key id the API made (a UUID) or one given at creation (`[a-z]([a-z0-9-]{0,61}[a-z0-9])?`). */
const KEY_ID =
  /^([a-z]([a-z0-9-]{0,61}[a-z0-9])?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export const apiKeysLineParamsSchema = z.strictObject({
  /** Project id (or number); it ends up in a URL path. */
  project: z.string().regex(/^([a-z][a-z0-9-]{4,28}[a-z0-9]|\d{1,20})$/, "a Google Cloud project id"),
  /** The key's id: the last segment of its name (keys live in `global`, the only location). */
  key: z.string().regex(KEY_ID, "an API key id (the last segment of its name)"),
  /**
   * A referrer pattern as the console takes it (`https://pr-7.preview.example.com/*`,
   * `*.example.com/*`): one entry, so no whitespace.
   */
  referrer: z
    .string()
    .min(1)
    .max(2_000)
    .regex(/^[^\s,]+$/, "one referrer pattern, no spaces or commas"),
});
export type ApiKeysLineParams = z.infer<typeof apiKeysLineParamsSchema>;

/** `googleapikey:<project>:key:<key id>` (docs/design.md, "Vocabulary"). */
export function apiKeyIdentity(project: string, key: string): string {
  return `googleapikey:${project}:key:${key}`;
}
