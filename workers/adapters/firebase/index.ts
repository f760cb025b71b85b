/**
 * Firebase Auth / Identity Platform: a project's authorized domains. Plan block:
 * `{ "type": "firebase", "serviceAccountKey": { "secret": "GOOGLE_SERVICE_ACCOUNT_KEY" } }` (the
 * key file's JSON); line params: `{ "project": "<project id>", "domain": "pr-1.preview.example.com" }`.
 * Keyless: `federated: { audience, serviceAccount }` instead of the key (./google-credentials.ts).
 */
import { z } from "zod";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter } from "../op-spec";
import {
  type FirebaseConfig,
  firebaseConfigIdentity,
  firebaseConfigSchema,
  firebaseLineParamsSchema,
} from "./config";
import { withGoogleToken } from "./google-credentials";
import { readAuthorizedDomains, writeAuthorizedDomains } from "./identity-toolkit";

const parse = (params: Params) => firebaseLineParamsSchema.parse(params);

const authorizedDomain: OpSpec<FirebaseConfig> = listMemberOp<FirebaseConfig, string[]>({
  name: "firebase.authorizedDomain",
  providerType: "firebase",
  params: firebaseLineParamsSchema,
  itemParam: "domain",
  objectParam: "project",
  lockOn: (params) => firebaseConfigIdentity(parse(params).project),
  read: (ctx, project) => readAuthorizedDomains(ctx, project),
  objectSchema: z.array(z.string()),
  entries: (domains) => domains,
  withEntry: listWithEntry,
  write: (ctx, project, _before, after) => writeAuthorizedDomains(ctx, project, after),
});

const typedAdapter: ProviderAdapter<FirebaseConfig> = {
  type: "firebase",
  config: firebaseConfigSchema,
  // The jwt-bearer token exchange happens here, before any lease is taken (docs/design.md, "Lease protocol").
  prepare: (ctx) => withGoogleToken(ctx, "firebase", ctx.config, async () => {}),
  ops: [authorizedDomain],
};

export const firebaseAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { firebaseConfigIdentity, firebaseConfigSchema, firebaseLineParamsSchema } from "./config";
