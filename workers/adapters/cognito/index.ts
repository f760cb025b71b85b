/**
 * Amazon Cognito: a user pool app client's callback and sign-out URLs. Describe the client, change
 * one or both lists, Update with every other attribute as described (Update resets what it is not
 * sent). A removed callback URL that is the client's DefaultRedirectURI takes the default with it:
 * Cognito refuses a default that is not a callback URL, and a preview's URL must not outlive it.
 * Connection: `{ "type": "cognito", "config": { "region": "us-east-1", "accessKeyId": "AKIA…" },
 * "secrets": { "secretAccessKey": "COGNITO_SECRET_ACCESS_KEY" } }`; line params:
 * `{ "userPool": "us-east-1_AbC", "client": "<app client id>", "url": "https://…" }`.
 */

import { prepareAwsCredentials } from "../aws/credentials";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter, withCapacity } from "../op-spec";
import {
  type CognitoConfig,
  cognitoClientIdentity,
  cognitoConfigSchema,
  cognitoLineParamsSchema,
} from "./config";
import {
  describeClient,
  type UserPoolClient,
  updateClient,
  userPoolClientSchema,
} from "./user-pool-client-api";

const parse = (params: Params) => cognitoLineParamsSchema.parse(params);
type ListField = "CallbackURLs" | "LogoutURLs";

/** The client with `field` replaced; a DefaultRedirectURI no longer among the callbacks is dropped. */
export function withList(client: UserPoolClient, field: ListField, list: string[]): UserPoolClient {
  const next: UserPoolClient = { ...client, [field]: list };
  const callbacks = next.CallbackURLs ?? [];
  if (typeof next.DefaultRedirectURI === "string" && !callbacks.includes(next.DefaultRedirectURI)) {
    delete next.DefaultRedirectURI;
  }
  return next;
}

function cognitoListOp(name: string, field: ListField): OpSpec<CognitoConfig> {
  return listMemberOp<CognitoConfig, UserPoolClient>({
    name,
    providerType: "cognito",
    params: cognitoLineParamsSchema,
    itemParam: "url",
    objectParam: "client",
    objectOf: (params) => {
      const p = parse(params);
      return `${p.userPool}/${p.client}`;
    },
    // Both lists live on the client: a run's URLs in either go out in one Update.
    kind: "cognito.client",
    lockOn: (params, provider) => {
      const p = parse(params);
      return cognitoClientIdentity(String(provider.region), p.userPool, p.client);
    },
    read: (ctx, object) => {
      const [pool = "", client = ""] = object.split("/");
      return describeClient(ctx, pool, client);
    },
    objectSchema: userPoolClientSchema,
    entries: (client) => client[field] ?? [],
    withEntry: (client, url, present) =>
      withList(client, field, listWithEntry(client[field] ?? [], url, present)),
    write: (ctx, _object, _before, after) => updateClient(ctx, after),
  });
}

const typedAdapter: ProviderAdapter<CognitoConfig> = {
  type: "cognito",
  config: cognitoConfigSchema,
  prepare: (ctx) => prepareAwsCredentials(ctx, "cognito"),
  ops: [
    withCapacity(cognitoListOp("cognito.callbackUrl", "CallbackURLs"), {
      maxEntries: 100,
      maxEntryChars: 1024,
    }),
    withCapacity(cognitoListOp("cognito.logoutUrl", "LogoutURLs"), { maxEntries: 100, maxEntryChars: 1024 }),
  ],
};

export const cognitoAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { cognitoClientIdentity } from "./config";
