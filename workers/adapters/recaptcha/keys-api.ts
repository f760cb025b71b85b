/**
 * reCAPTCHA Enterprise keys (reCAPTCHA Enterprise API v1 reference, projects.keys): GET the key,
 * and PATCH ?updateMask=webSettings.allowedDomains with that list alone. The mask is what keeps the
 * rest of the key: a PATCH without one updates every field, so whatever the body leaves out (the
 * integration type, labels, WAF settings, fields this adapter has never heard of) would be cleared.
 * No etag and no precondition: the last write wins, so the parent lease is the only guard.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import { googleHttp } from "../firebase/google-auth";
import { withGoogleToken } from "../firebase/google-credentials";
import { type HttpContext, providerJson } from "../http";
import type { RecaptchaConfig } from "./config";

export interface RecaptchaContext extends HttpContext {
  config: RecaptchaConfig;
}

export interface KeyAddress {
  project: string;
  siteKey: string;
}

const spec = googleHttp("recaptcha");
const keySchema = z
  .object({
    name: z.string(),
    webSettings: z
      .object({ allowedDomains: z.array(z.string()).nullish() })
      .loose()
      .nullish(),
  })
  .loose();

const keyUrl = (at: KeyAddress) =>
  `https://recaptchaenterprise.googleapis.com/v1/projects/${at.project}/keys/${at.siteKey}`;
export const ALLOWED_DOMAINS_MASK = "webSettings.allowedDomains";

/**
 * Only a website key has allowed domains. Writing `webSettings` into an Android or iOS key would
 * turn it into a website key (the platform settings are a oneof), so such a key is refused before
 * anything is written.
 */
function notAWebsiteKey(at: KeyAddress): SponsonError {
  return new SponsonError(
    "PROVIDER_ERROR",
    `recaptcha: key projects/${at.project}/keys/${at.siteKey} is not a website key (it has no webSettings): only a website key has allowed domains`,
    { provider: "recaptcha", status: 200, attempts: 1 },
    { retriable: false },
  );
}

export function readAllowedDomains(ctx: RecaptchaContext, at: KeyAddress): Promise<string[]> {
  return withGoogleToken(ctx, "recaptcha", ctx.config, async (token) => {
    const key = await providerJson(
      ctx,
      spec,
      { method: "GET", url: keyUrl(at), headers: { authorization: `Bearer ${token}` } },
      keySchema,
    );
    if (!key.webSettings) throw notAWebsiteKey(at);
    return key.webSettings.allowedDomains ?? [];
  });
}

export function writeAllowedDomains(ctx: RecaptchaContext, at: KeyAddress, domains: string[]): Promise<void> {
  return withGoogleToken(ctx, "recaptcha", ctx.config, async (token) => {
    await providerJson(
      ctx,
      spec,
      {
        method: "PATCH",
        url: `${keyUrl(at)}?updateMask=${ALLOWED_DOMAINS_MASK}`,
        headers: { authorization: `Bearer ${token}` },
        json: { webSettings: { allowedDomains: domains } },
      },
      keySchema,
    );
  });
}
