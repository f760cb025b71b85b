/**
 * The reCAPTCHA Enterprise provider block and line params (reCAPTCHA Enterprise API v1 reference,
 * projects.keys).
 */
import { z } from "zod";
import { projectIdSchema } from "../firebase/config";
import { eitherCredential, googleCredentialFields } from "../firebase/google-credentials";

/** A key file, or federated (docs/design.md, "Federated connections"). */
export const recaptchaConfigSchema = z
  .strictObject({ type: z.literal("recaptcha"), ...googleCredentialFields })
  .superRefine(...eitherCredential);
export type RecaptchaConfig = z.infer<typeof recaptchaConfigSchema>;

export const recaptchaLineParamsSchema = z.strictObject({
  /**
   * The project id, never its number: the lock identity is built from it as written, and one key
   * named two ways would be locked twice.
   */
  project: projectIdSchema,
  /** The key's id (the site key the page loads); it ends up in a URL path. */
  siteKey: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "a reCAPTCHA key id (the site key)"),
  /**
   * An allowed domain is a host alone: no scheme, port, path, query or fragment, no wildcard (every
   * subdomain of an entry is allowed with it; the URL shape check refuses a public suffix).
   */
  domain: z
    .string()
    .max(253)
    .regex(
      /^(localhost|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+)$/,
      "a bare host name (no scheme, port or path)",
    ),
});
export type RecaptchaLineParams = z.infer<typeof recaptchaLineParamsSchema>;

/** `recaptcha:<project>:key:<site key>` (docs/design.md, "Vocabulary"). */
export function recaptchaKeyIdentity(project: string, siteKey: string): string {
  return `recaptcha:${project}:key:${siteKey}`;
}
