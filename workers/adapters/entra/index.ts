/**
 * Microsoft Entra ID: an application's redirect URIs, in its `web`, `spa` or `publicClient`
 * platform (param `kind`). GET the application, PATCH the changed platforms back (no
 * precondition: the parent lease serializes). Graph is eventually consistent, so what a holder
 * wrote may be missing from the next holder's read (docs/design.md, "Providers that forget a
 * write"). Connection: `{ "type": "entra", "config": { "tenant": "contoso.onmicrosoft.com",
 * "clientId": "<GUID>" }, "secrets": { "clientSecret": "ENTRA_CLIENT_SECRET" } }`; line params:
 * `{ "application": "<object id>", "kind": "web", "url": "https://…" }`. An item is a URL in one
 * platform: its key is `<kind>:<url>` (a kind holds no colon), so the same URL in `web` and `spa` is
 * two items, each owned, remembered and listed on its own.
 */

import { GRAPH_BUDGET } from "../budgets";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type Params, type ProviderAdapter, withCapacity } from "../op-spec";
import { ENTRA_CAPACITY } from "./capacity";
import {
  ENTRA_KINDS,
  ENTRA_WRITE_VISIBILITY_MS,
  type EntraConfig,
  entraApplicationIdentity,
  entraConfigSchema,
  entraLineParamsSchema,
} from "./config";
import {
  type EntraApp,
  entraAppSchema,
  prepareGraphToken,
  readApplication,
  redirectUrisOf,
  withRedirectUris,
  writeApplication,
} from "./graph-api";

const parse = (params: Params) => entraLineParamsSchema.parse(params);

/** `<kind>:<url>`: the platform is part of the item (the key is split at its first colon). */
const keyOf = (kind: string, url: string) => `${kind}:${url}`;

function paramsOfKey(key: string): Params | null {
  const colon = key.indexOf(":");
  const kind = key.slice(0, colon);
  if (colon < 0 || !(ENTRA_KINDS as readonly string[]).includes(kind)) return null;
  return { kind, url: key.slice(colon + 1) };
}

const redirectUri = listMemberOp<EntraConfig, EntraApp>({
  name: "entra.redirectUri",
  providerType: "entra",
  params: entraLineParamsSchema,
  itemParam: "url",
  objectParam: "application",
  // All three platforms live on the application: a run's URIs in any of them go out in one PATCH.
  kind: "entra.application",
  // Graph is eventually consistent (docs/design.md, "Providers that forget a write"): the parent
  // lock remembers each write this long, well past the replication delays Microsoft describes.
  forgetsWritesForMs: ENTRA_WRITE_VISIBILITY_MS,
  lockOn: (params, provider) => entraApplicationIdentity(provider, parse(params).application),
  read: (ctx, application) => readApplication(ctx, application),
  objectSchema: entraAppSchema,
  entries: (app, params) => redirectUrisOf(app, parse(params).kind),
  // A first look and the sweep see every platform's list: the op edits all three.
  keys: {
    keyOf: (params) => {
      const { kind, url } = parse(params);
      return keyOf(kind, url);
    },
    keysOf: (app) => ENTRA_KINDS.flatMap((kind) => redirectUrisOf(app, kind).map((url) => keyOf(kind, url))),
    paramsOf: paramsOfKey,
  },
  withEntry: (app, url, present, params) => {
    const kind = parse(params).kind;
    return withRedirectUris(app, kind, listWithEntry(redirectUrisOf(app, kind), url, present));
  },
  write: (ctx, application, before, after) => writeApplication(ctx, application, before, after),
});

const typedAdapter: ProviderAdapter<EntraConfig> = {
  type: "entra",
  config: entraConfigSchema,
  prepare: prepareGraphToken,
  budget: GRAPH_BUDGET,
  ops: [withCapacity(redirectUri, ENTRA_CAPACITY)],
};

export const entraAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { entraApplicationIdentity } from "./config";
