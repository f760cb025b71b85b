/**
 * One HTTP-referrer pattern of a Google API key's website restriction
 * (`restrictions.browserKeyRestrictions.allowedReferrers`). The key is read whole under the parent
 * lease; an edit changes that list alone and keeps every other restriction as read (`apiTargets`,
 * fields this adapter does not know); the write carries the etag read, so a key changed since is
 * refused, read again and decided again (StaleState, docs/design.md, "Fencing around a write"),
 * never overwritten.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import type { ItemAction, OpContext, OpSpec, Params } from "../op-spec";
import { MAX_DECIDE_ATTEMPTS, StaleState } from "../stale-state";
import { type ApiKeysConfig, apiKeyIdentity, apiKeysLineParamsSchema } from "./config";
import { type KeyAddress, type KeyState, readKey, restrictionsSchema, writeRestrictions } from "./keys-api";

const OTHER_CLIENTS: Record<string, string> = {
  serverKeyRestrictions: "IP addresses",
  androidKeyRestrictions: "Android apps",
  iosKeyRestrictions: "iOS apps",
};

const browserSchema = z.object({ allowedReferrers: z.array(z.string()).optional() }).loose();

/** The key's referrers as its clients read them: none when it has no website restriction. */
export function referrersOf(state: KeyState): string[] {
  const browser = browserSchema.safeParse(state.restrictions.browserKeyRestrictions);
  return browser.success ? (browser.data.allowedReferrers ?? []) : [];
}

/**
 * The key with `referrer` added or dropped. An add needs a key restricted to websites: one
 * restricted to other clients cannot take a referrer (the client restrictions are a oneof), and
 * one with no restriction would be narrowed to this referrer alone — production's uses of the key
 * refused — so both are refused before any write.
 */
export function withReferrer(state: KeyState, referrer: string, present: boolean): KeyState {
  const { restrictions } = state;
  const browser = browserSchema.safeParse(restrictions.browserKeyRestrictions);
  if (present) {
    const other = Object.keys(OTHER_CLIENTS).find(
      (k) => restrictions[k] !== undefined && restrictions[k] !== null,
    );
    if (other) {
      throw new SponsonError(
        "VALIDATION",
        `googleapikey: the key is restricted to ${OTHER_CLIENTS[other]}, not to websites: a referrer cannot be added to it`,
      );
    }
    if (!browser.success || restrictions.browserKeyRestrictions === undefined) {
      throw new SponsonError(
        "VALIDATION",
        "googleapikey: the key has no website restriction: adding a referrer would restrict it to that referrer alone; give it its own referrers first (Application restrictions → Websites)",
      );
    }
  }
  const own = browser.success ? browser.data : {};
  const allowedReferrers = listWithEntry(own.allowedReferrers ?? [], referrer, present);
  return {
    ...state,
    restrictions: { ...restrictions, browserKeyRestrictions: { ...own, allowedReferrers } },
  };
}

const objectKey = (at: KeyAddress) => `${at.project}/${at.key}`;
const fromKey = (object: string): KeyAddress => {
  const [project = "", key = ""] = object.split("/");
  return { project, key };
};

const stateSchema = z.object({ etag: z.string(), restrictions: restrictionsSchema });

const listOp: OpSpec<ApiKeysConfig> = listMemberOp<ApiKeysConfig, KeyState>({
  name: "googleapikey.referrer",
  providerType: "googleapikey",
  params: apiKeysLineParamsSchema,
  itemParam: "referrer",
  objectParam: "key",
  objectOf: (params) => objectKey(apiKeysLineParamsSchema.parse(params)),
  lockOn: (params) => {
    const p = apiKeysLineParamsSchema.parse(params);
    return apiKeyIdentity(p.project, p.key);
  },
  read: (ctx, object) => readKey(ctx, fromKey(object)),
  objectSchema: stateSchema,
  entries: referrersOf,
  withEntry: withReferrer,
  async write(ctx, object, before, after) {
    const at = fromKey(object);
    const outcome = await writeRestrictions(ctx, at, before.etag, after.restrictions);
    // Refused as made on a stale read: nothing was written; the engine reads and decides again.
    if (outcome === "stale") throw new StaleState({ provider: "googleapikey", status: 409, key: object });
  },
});

/**
 * One item alone (an orphan's removal, a contract test): a stale etag re-reads the key and makes
 * the item's own edit again — for one item, deciding again — a bounded number of times.
 */
async function writeOne(ctx: OpContext<ApiKeysConfig>, params: Params, seen: unknown, action: ItemAction) {
  const batch = listOp.batch;
  if (!batch) throw new SponsonError("INTERNAL", "googleapikey.referrer has its many-items form");
  let state = seen;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await batch.write(ctx, params, state, (s) => batch.edit(s, params, action));
    } catch (err) {
      if (!(err instanceof StaleState)) throw err;
      if (attempt >= MAX_DECIDE_ATTEMPTS) {
        throw new SponsonError(
          "CONCURRENT_MODIFICATION",
          `googleapikey: key ${err.detail.key} kept changing (409 ABORTED ${attempt} times); nothing was overwritten`,
          { provider: "googleapikey", status: 409, attempts: attempt },
        );
      }
      state = await batch.read(ctx, params);
    }
  }
}

export const referrerOp: OpSpec<ApiKeysConfig> = {
  ...listOp,
  create: (ctx, params, seen) => writeOne(ctx, params, seen.state, "create"),
  remove: (ctx, params, seen) => writeOne(ctx, params, seen.state, "remove"),
};
