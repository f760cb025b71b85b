/**
 * Google IAM OAuth clients: an OAuth client's allowed redirect URIs. Connection:
 * `{ "type": "google", "secrets": { "serviceAccountKey": "GOOGLE_SERVICE_ACCOUNT_KEY" } }`; line params:
 * `{ "project": "<project id>", "location": "global", "client": "<client id>", "url": "https://…" }`.
 * Keyless: `federated: { audience, serviceAccount }` instead of the key (../firebase/google-credentials.ts).
 */
import { z } from "zod";
import { withGoogleToken } from "../firebase/google-credentials";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter } from "../op-spec";
import {
  type GoogleConfig,
  googleConfigSchema,
  googleLineParamsSchema,
  googleOAuthClientIdentity,
  locationOf,
} from "./config";
import { type ClientAddress, readRedirectUris, writeRedirectUris } from "./oauth-clients-api";

const parse = (params: Params) => googleLineParamsSchema.parse(params);
const address = (params: Params): ClientAddress => {
  const p = parse(params);
  return { project: p.project, location: locationOf(p), client: p.client };
};
/** The object param is the client's whole address, so one state names one client. */
const objectKey = (at: ClientAddress) => `${at.project}/${at.location}/${at.client}`;
const fromKey = (key: string): ClientAddress => {
  const [project = "", location = "", client = ""] = key.split("/");
  return { project, location, client };
};

const redirectUri: OpSpec<GoogleConfig> = listMemberOp<GoogleConfig, string[]>({
  name: "google.oauthClientRedirectUri",
  providerType: "google",
  params: googleLineParamsSchema,
  itemParam: "url",
  objectParam: "client",
  objectOf: (params) => objectKey(address(params)),
  lockOn: (params) => {
    const at = address(params);
    return googleOAuthClientIdentity(at.project, at.location, at.client);
  },
  read: (ctx, key) => readRedirectUris(ctx, fromKey(key)),
  objectSchema: z.array(z.string()),
  entries: (uris) => uris,
  withEntry: listWithEntry,
  write: (ctx, key, _before, after) => writeRedirectUris(ctx, fromKey(key), after),
});

const typedAdapter: ProviderAdapter<GoogleConfig> = {
  type: "google",
  config: googleConfigSchema,
  // The jwt-bearer exchange happens before any lease is taken (docs/design.md, "Lease protocol").
  prepare: (ctx) => withGoogleToken(ctx, "google", ctx.config, async () => {}),
  ops: [redirectUri],
};

export const googleAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { googleConfigSchema, googleLineParamsSchema, googleOAuthClientIdentity } from "./config";
