/**
 * Auth0 (Management API v2): the four application lists a preview environment needs.
 * Plan block: `{ "type": "auth0", "domain": "acme.us.auth0.com", "clientId": "…",
 * "clientSecret": { "secret": "AUTH0_CLIENT_SECRET" }, "audience"?: "…" }`; line params:
 * `{ "client": "<application client id>", "url": "https://…" }`.
 */
import { AUTH0_BUDGET } from "../budgets";
import { defineAdapter, type ProviderAdapter, withCapacity, withOriginItems } from "../op-spec";
import { type Auth0Config, auth0ConfigSchema } from "./config";
import { auth0ListOp } from "./list-op";
import { warmAuth0Token } from "./management-api";

const typedAdapter: ProviderAdapter<Auth0Config> = {
  type: "auth0",
  config: auth0ConfigSchema,
  prepare: (ctx) => warmAuth0Token(ctx),
  budget: AUTH0_BUDGET,
  ops: [
    auth0ListOp("auth0.callbackUrl", "callbacks"),
    // Auth0 documents 100 for these two lists only (callbacks and allowed origins: not documented).
    withCapacity(auth0ListOp("auth0.logoutUrl", "allowed_logout_urls"), { maxEntries: 100 }),
    withCapacity(withOriginItems(auth0ListOp("auth0.webOrigin", "web_origins")), { maxEntries: 100 }),
    withOriginItems(auth0ListOp("auth0.allowedOrigin", "allowed_origins")),
  ],
};

/** As the engine's registry holds adapters: config is validated by `config` before any op runs. */
export const auth0Adapter: ProviderAdapter = defineAdapter(typedAdapter);

export { type Auth0Config, auth0ClientIdentity, auth0ConfigSchema, auth0LineParamsSchema } from "./config";
