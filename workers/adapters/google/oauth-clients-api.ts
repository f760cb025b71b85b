/**
 * IAM OAuth clients (IAM API v1 reference): GET the client, and PATCH
 * ?updateMask=allowedRedirectUris, which replaces that list only (no etag: the parent lease
 * serializes). A service-account token with the cloud-platform scope, as for Firebase and GCS.
 */
import { z } from "zod";
import { googleHttp } from "../firebase/google-auth";
import { withGoogleToken } from "../firebase/google-credentials";
import { type HttpContext, providerJson } from "../http";
import type { GoogleConfig } from "./config";

export interface GoogleContext extends HttpContext {
  config: GoogleConfig;
}

const spec = googleHttp("google");
const clientSchema = z
  .object({ name: z.string(), allowedRedirectUris: z.array(z.string()).nullish() })
  .loose();

export interface ClientAddress {
  project: string;
  location: string;
  client: string;
}

const clientUrl = (a: ClientAddress) =>
  `https://iam.googleapis.com/v1/projects/${a.project}/locations/${a.location}/oauthClients/${a.client}`;

export function readRedirectUris(ctx: GoogleContext, at: ClientAddress): Promise<string[]> {
  return withGoogleToken(ctx, "google", ctx.config, async (token) => {
    const client = await providerJson(
      ctx,
      spec,
      { method: "GET", url: clientUrl(at), headers: { authorization: `Bearer ${token}` } },
      clientSchema,
    );
    return client.allowedRedirectUris ?? [];
  });
}

export function writeRedirectUris(ctx: GoogleContext, at: ClientAddress, uris: string[]): Promise<void> {
  return withGoogleToken(ctx, "google", ctx.config, async (token) => {
    await providerJson(
      ctx,
      spec,
      {
        method: "PATCH",
        url: `${clientUrl(at)}?updateMask=allowedRedirectUris`,
        headers: { authorization: `Bearer ${token}` },
        json: { allowedRedirectUris: uris },
      },
      clientSchema,
    );
  });
}
