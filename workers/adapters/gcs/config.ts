/** The Google Cloud Storage provider block and line params (Cloud Storage JSON API reference). */
import { z } from "zod";
import { corsLineParamsSchema } from "../cors/cors-origin";
import { eitherCredential, googleCredentialFields } from "../firebase/google-credentials";

/** A key file, or federated (docs/design.md, "Federated connections"). */
export const gcsConfigSchema = z
  .strictObject({ type: z.literal("gcs"), ...googleCredentialFields })
  .superRefine(...eitherCredential);
export type GcsConfig = z.infer<typeof gcsConfigSchema>;

/** GCS rules have no ID: lines name them `#<index>`. */
export const gcsLineParamsSchema = corsLineParamsSchema.extend({
  rule: z.string().regex(/^#\d{1,3}$/, "GCS CORS rules have no ID: name one as #<index>"),
});

/** `gcs:<bucket>:cors` (bucket names are globally unique). */
export function gcsCorsIdentity(bucket: string): string {
  return `gcs:${bucket}:cors`;
}
