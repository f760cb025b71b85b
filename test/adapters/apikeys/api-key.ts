/** A fresh emulated project with one browser API key, a service account on it, and an adapter context. */
import type { ApiKeyResource } from "../../../dev/emulators/apikeys";
import { apiKeysAdapter } from "../../../workers/adapters/apikeys";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { apiKey, apiKeyRecord, seedApiKey, seedApiKeysProject } from "../../helpers/emulators-apikeys";
import { freshGoogleProject, googleServiceAccount } from "../../helpers/emulators-firebase";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const referrer = apiKeysAdapter.ops[0] as OpSpec;
export const KEY = "previews-browser-key";
/** What another team set on the key besides its referrers: the ops must never touch it. */
export const API_TARGETS = [
  { service: "maps-backend.googleapis.com" },
  { service: "places.googleapis.com", methods: ["google.maps.places.v1.Places.Get*"] },
];

/** A key restricted to websites, holding `referrers`; `extra` restrictions ride along. */
export async function apiKeyWith(
  referrers: string[],
  { failure, extra = {} }: { failure?: SetupFailure; extra?: Record<string, unknown> } = {},
) {
  const project = freshGoogleProject();
  const account = await googleServiceAccount(failure !== "unauthenticated");
  await seedApiKeysProject(project, {
    members: { [account.email]: failure === "forbidden" ? "viewer" : "admin" },
  });
  if (failure !== "missing") {
    await seedApiKey(
      project,
      KEY,
      apiKeyRecord(project, KEY, {
        browserKeyRestrictions: { allowedReferrers: referrers },
        apiTargets: API_TARGETS,
        ...extra,
      }),
    );
  }
  const h = harness(apiKeysAdapter, { type: "googleapikey", serviceAccountKey: account.keyJson }, [
    account.keyJson,
  ]);
  const stored = async () => (await apiKey(project, KEY))?.key;
  const params = (ref: string) => ({ project, key: KEY, referrer: ref });
  const referrersNow = async () =>
    ((await stored())?.restrictions?.browserKeyRestrictions as { allowedReferrers?: string[] } | undefined)
      ?.allowedReferrers ?? [];
  return { ...h, project, account, stored, params, referrersNow };
}

/** The key as the contract compares it: what an update leaves alone (not its etag or update time). */
export function lasting(key: ApiKeyResource | undefined) {
  if (!key) return undefined;
  const { etag: _etag, updateTime: _updated, ...rest } = key;
  return rest;
}
