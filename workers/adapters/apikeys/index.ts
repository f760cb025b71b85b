/**
 * Google API keys: one HTTP-referrer pattern of a key's website restriction (API Keys API v2).
 * With GCS, the one provider whose write carries a real precondition: the key's `etag`
 * (./keys-api.ts). Its update is a long-running Operation (./operation.ts). Connection:
 * `{ "type": "googleapikey", "secrets": { "serviceAccountKey": "GOOGLE_SERVICE_ACCOUNT_KEY" } }`;
 * line params: `{ "project": "<project id>", "key": "<key id>", "referrer": "https://…/*" }`.
 * Keyless: `federated: { audience, serviceAccount }` instead of the key (../firebase/google-credentials.ts).
 */
import { withGoogleToken } from "../firebase/google-credentials";
import { defineAdapter, type ProviderAdapter } from "../op-spec";
import { type ApiKeysConfig, apiKeysConfigSchema } from "./config";
import { referrerOp } from "./referrer-op";

const typedAdapter: ProviderAdapter<ApiKeysConfig> = {
  type: "googleapikey",
  config: apiKeysConfigSchema,
  // The jwt-bearer exchange happens before any lease is taken (docs/design.md, "Lease protocol").
  prepare: (ctx) => withGoogleToken(ctx, "googleapikey", ctx.config, async () => {}),
  ops: [referrerOp],
};

export const apiKeysAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { apiKeyIdentity, apiKeysConfigSchema, apiKeysLineParamsSchema } from "./config";
export { OPERATION_WAIT_MS } from "./operation";
