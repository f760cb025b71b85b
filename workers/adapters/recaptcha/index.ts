/**
 * reCAPTCHA Enterprise: a website key's allowed domains. Connection:
 * `{ "type": "recaptcha", "secrets": { "serviceAccountKey": "GOOGLE_SERVICE_ACCOUNT_KEY" } }`; line
 * params: `{ "project": "<project id>", "siteKey": "<key id>", "domain": "pr-1.preview.example.com" }`.
 * Keyless: `federated: { audience, serviceAccount }` instead of the key (../firebase/google-credentials.ts).
 * A key takes at most 250 domains (docs/adapters.md, "Capacity"), and every subdomain of an entry
 * is allowed with it, so the URL shape check judges an entry as the wildcard it is.
 */
import { z } from "zod";
import { withGoogleToken } from "../firebase/google-credentials";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import {
  defineAdapter,
  type OpSpec,
  type Params,
  type ProviderAdapter,
  withCapacity,
  withSubdomainItems,
} from "../op-spec";
import {
  type RecaptchaConfig,
  recaptchaConfigSchema,
  recaptchaKeyIdentity,
  recaptchaLineParamsSchema,
} from "./config";
import { type KeyAddress, readAllowedDomains, writeAllowedDomains } from "./keys-api";

/** "Each key supports a maximum of 250 domains" (the API's WebKeySettings.allowed_domains). */
export const RECAPTCHA_MAX_DOMAINS = 250;

const address = (params: Params): KeyAddress => {
  const p = recaptchaLineParamsSchema.parse(params);
  return { project: p.project, siteKey: p.siteKey };
};
/** The object param is the key's whole address, so one state names one key. */
const objectKey = (at: KeyAddress) => `${at.project}/${at.siteKey}`;
const fromKey = (object: string): KeyAddress => {
  const [project = "", siteKey = ""] = object.split("/");
  return { project, siteKey };
};

const allowedDomain: OpSpec<RecaptchaConfig> = listMemberOp<RecaptchaConfig, string[]>({
  name: "recaptcha.domain",
  providerType: "recaptcha",
  params: recaptchaLineParamsSchema,
  itemParam: "domain",
  objectParam: "siteKey",
  objectOf: (params) => objectKey(address(params)),
  lockOn: (params) => {
    const at = address(params);
    return recaptchaKeyIdentity(at.project, at.siteKey);
  },
  read: (ctx, object) => readAllowedDomains(ctx, fromKey(object)),
  objectSchema: z.array(z.string()),
  entries: (domains) => domains,
  withEntry: listWithEntry,
  write: (ctx, object, _before, after) => writeAllowedDomains(ctx, fromKey(object), after),
});

const typedAdapter: ProviderAdapter<RecaptchaConfig> = {
  type: "recaptcha",
  config: recaptchaConfigSchema,
  // The token exchange happens before any lease is taken (docs/design.md, "Lease protocol").
  prepare: (ctx) => withGoogleToken(ctx, "recaptcha", ctx.config, async () => {}),
  ops: [withCapacity(withSubdomainItems(allowedDomain), { maxEntries: RECAPTCHA_MAX_DOMAINS })],
};

export const recaptchaAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { recaptchaConfigSchema, recaptchaKeyIdentity, recaptchaLineParamsSchema } from "./config";
