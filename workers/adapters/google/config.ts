/**
 * The Google IAM OAuth clients provider block and line params (IAM API v1 reference,
 * projects.locations.oauthClients). Classic "web application" OAuth clients have no API for their
 * redirect URIs (docs/adapters.md, "Google OAuth clients").
 */
import { z } from "zod";
import { eitherCredential, googleCredentialFields } from "../firebase/google-credentials";

/** A key file, or federated (docs/design.md, "Federated connections"). */
export const googleConfigSchema = z
  .strictObject({ type: z.literal("google"), ...googleCredentialFields })
  .superRefine(...eitherCredential);
export type GoogleConfig = z.infer<typeof googleConfigSchema>;

export const googleLineParamsSchema = z.strictObject({
  /** Project id (or number); it ends up in a URL path. */
  project: z.string().regex(/^([a-z][a-z0-9-]{4,28}[a-z0-9]|\d{1,20})$/, "a Google Cloud project id"),
  /** OAuth clients live in `global`, the only location the API serves today. */
  location: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,62}$/, "a location such as global")
    .optional(),
  /** The OAuth client's resource id (the last segment of its name). */
  client: z.string().regex(/^[a-z][a-z0-9-]{5,62}$/, "an OAuth client id such as my-client"),
  url: z
    .string()
    .max(2_000)
    .regex(/^(https:\/\/|http:\/\/localhost)[^\s,]*$/, "an https URL (http only for localhost)"),
});

export const locationOf = (params: { location?: string | undefined }) => params.location ?? "global";

/** `google:<project>:oauthClient:<location>/<client>` (docs/design.md, "Vocabulary"). */
export function googleOAuthClientIdentity(project: string, location: string, client: string): string {
  return `google:${project}:oauthClient:${location}/${client}`;
}
