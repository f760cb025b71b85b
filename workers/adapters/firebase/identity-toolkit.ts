/**
 * Identity Platform admin API v2 (Identity Platform admin API v2 reference): the project Config's
 * `authorizedDomains`, read with GET and written with PATCH ?updateMask=authorizedDomains, which replaces
 * that array only.
 */
import { z } from "zod";
import { type HttpContext, providerJson } from "../http";
import type { FirebaseConfig } from "./config";
import { googleHttp } from "./google-auth";
import { withGoogleToken } from "./google-credentials";

export interface FirebaseContext extends HttpContext {
  config: FirebaseConfig;
}

const spec = googleHttp("firebase");
const configSchema = z.object({ authorizedDomains: z.array(z.string()).nullish() });

function configUrl(project: string): string {
  return `https://identitytoolkit.googleapis.com/admin/v2/projects/${project}/config`;
}

export function readAuthorizedDomains(ctx: FirebaseContext, project: string): Promise<string[]> {
  return withGoogleToken(ctx, "firebase", ctx.config, async (token) => {
    const config = await providerJson(
      ctx,
      spec,
      { method: "GET", url: configUrl(project), headers: { authorization: `Bearer ${token}` } },
      configSchema,
    );
    return config.authorizedDomains ?? [];
  });
}

export function writeAuthorizedDomains(
  ctx: FirebaseContext,
  project: string,
  domains: string[],
): Promise<void> {
  return withGoogleToken(ctx, "firebase", ctx.config, async (token) => {
    await providerJson(
      ctx,
      spec,
      {
        method: "PATCH",
        url: `${configUrl(project)}?updateMask=authorizedDomains`,
        headers: { authorization: `Bearer ${token}` },
        json: { authorizedDomains: domains },
      },
      configSchema,
    );
  });
}
