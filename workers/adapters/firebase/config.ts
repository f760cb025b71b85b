/**
 * The Firebase / Identity Platform provider block and line params (Identity Platform admin API v2
 * reference).
 */
import { z } from "zod";
import { eitherCredential, googleCredentialFields } from "./google-credentials";

/**
 * The resolved block: `serviceAccountKey` is the key file JSON its secret reference resolved to, or
 * `federated` names a pool provider and service account (docs/design.md, "Federated connections").
 */
export const firebaseConfigSchema = z
  .strictObject({ type: z.literal("firebase"), ...googleCredentialFields })
  .superRefine(...eitherCredential);
export type FirebaseConfig = z.infer<typeof firebaseConfigSchema>;

export const projectIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "a Google Cloud project id");

export const firebaseLineParamsSchema = z.strictObject({
  project: projectIdSchema,
  /** Authorized domains are bare host names (no scheme, port or path) and take no wildcards. */
  domain: z
    .string()
    .max(253)
    .regex(
      /^(localhost|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+)$/,
      "a bare host name",
    ),
});
export type FirebaseLineParams = z.infer<typeof firebaseLineParamsSchema>;

/** `firebase:<project>:config`: the project's one Identity Platform config (docs/design.md, "Vocabulary"). */
export function firebaseConfigIdentity(project: string): string {
  return `firebase:${project}:config`;
}
