/**
 * The state versions before 0.2.0 wrote that the upgrade moves (docs/upgrading.md), written straight
 * into storage and R2 exactly as those versions wrote it, since no code path writes it any more:
 *
 * - a scope lock of 0.1.x: a holder's `putIntents` numbered each put (`meta.intent_seq`) and kept
 *   one row per run, item and action in `pending_intents`, each body carrying that number as
 *   `lockSeq`; a lock that went free keeping some wrote its pending-intents index entry;
 * - a receipt written before 0.2.0: no `repository`, at `receipts/<environment>/<scope>.json`.
 *
 * The R2 bucket is shared by every test file (vitest.config.ts: one runtime), so each upgrade pass
 * a test runs sees only its own keys (`onlyKeysOf`): another file's pass never moves them either.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { legacyIntentsIndexKey } from "../../shared/lock-index";
import type { Intent, Receipt } from "../../shared/schemas/receipt";
import { legacyReceiptKey } from "../../workers/upgrade/legacy-receipt-keys";
import { type UpgradeDeps, upgradeDeps } from "../../workers/upgrade/upgrade-deps";
import { UPGRADE_RESUME_KEY } from "../../workers/upgrade/upgrade-turn";
import { testEnv } from "../helpers/connections";
import { rawStub } from "../helpers/locks";

/**
 * One put of 0.1.x, then the object restarted as the deploy of this version restarts it (the
 * object counts the rows it keeps when it starts: none is ever added since). Returns the number
 * 0.1.x gave the put.
 */
export async function putLegacyIntents(key: string, intents: readonly Intent[]): Promise<number> {
  const seq = await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    const sql = state.storage.sql;
    const row = sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = 'intent_seq'").toArray()[0];
    const seq = (row ? Number(row.v) : 0) + 1;
    sql.exec(
      "INSERT INTO meta (k, v) VALUES ('intent_seq', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      String(seq),
    );
    // 0.1.x remembered the key with the first acquire; a lock first written here needs it too.
    sql.exec("INSERT INTO meta (k, v) VALUES ('key', ?) ON CONFLICT (k) DO NOTHING", key);
    for (const intent of intents) {
      sql.exec(
        `INSERT INTO pending_intents (id, body, at) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET body = excluded.body, at = excluded.at`,
        JSON.stringify([intent.runId, intent.action, intent.op, intent.key, intent.parent]),
        JSON.stringify({ ...intent, lockSeq: seq }),
        intent.at,
      );
    }
    return seq;
  });
  await restartObject(key);
  return seq;
}

/** Aborts the object as a deploy does; the next call starts it again. */
export async function restartObject(key: string): Promise<void> {
  const aborted = await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.abort("deploy");
  }).then(
    () => null,
    (err: unknown) => err,
  );
  if (!aborted) throw new Error("the object did not restart");
}

/** The index entry 0.1.x's lock wrote once free with rows (and the lock's note that it did). */
export async function putLegacyIndexEntry(key: string): Promise<void> {
  await env.RECEIPTS.put(legacyIntentsIndexKey(key), JSON.stringify({ key }));
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.storage.sql.exec(
      "INSERT INTO meta (k, v) VALUES ('pending_indexed', '1') ON CONFLICT (k) DO UPDATE SET v = '1'",
    );
  });
}

export async function legacyIndexed(key: string): Promise<boolean> {
  return (await env.RECEIPTS.head(legacyIntentsIndexKey(key))) !== null;
}

/** The rows a lock keeps, as stored (read-only). */
export async function legacyRows(key: string): Promise<number> {
  return runInDurableObject(
    rawStub(key),
    async (_instance: LeaseLock, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pending_intents").one().n,
  );
}

/** A receipt as written before 0.2.0: no `repository`, at the key of that layout. */
export async function putLegacyReceipt(receipt: Receipt): Promise<string> {
  const { repository: _dropped, ...legacy } = receipt;
  const key = legacyReceiptKey(receipt.environment, receipt.scope);
  await env.RECEIPTS.put(key, JSON.stringify(legacy));
  return key;
}

/**
 * The receipts bucket as one test's upgrade pass sees it: listings name only keys that end with one
 * of `scopes` (a receipt key, a lock key inside an index entry's), and the folders above them; the
 * passes' resume mark is this view's own, so another file's pass never moves it either.
 */
export function onlyKeysOf(bucket: R2Bucket, scopes: readonly string[]): R2Bucket {
  const ours = (key: string) =>
    scopes.some((s) => key.endsWith(`/${s}.json`) || key.endsWith(encodeURIComponent(`/${s}`)));
  const mark = `${UPGRADE_RESUME_KEY}.${crypto.randomUUID()}`;
  const own = (key: unknown) => (key === UPGRADE_RESUME_KEY ? mark : key);
  return new Proxy(bucket, {
    get(target, prop) {
      if (prop === "list") {
        return async (options?: R2ListOptions) => {
          const page = await target.list(options);
          return {
            ...page,
            objects: page.objects.filter((o) => ours(o.key)),
            delimitedPrefixes: page.delimitedPrefixes,
          };
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "put" || prop === "delete" || prop === "head") {
        return (key: unknown, ...rest: unknown[]) => value.call(target, own(key), ...rest);
      }
      return value.bind(target);
    },
  });
}

/** The upgrade's deps on the test bindings, its listings limited to `scopes`; `wrap` changes a part. */
export function testUpgradeDeps(
  scopes: readonly string[],
  wrap: (deps: UpgradeDeps) => Partial<UpgradeDeps> = () => ({}),
): UpgradeDeps {
  const bindings = testEnv({ ...env, RECEIPTS: onlyKeysOf(env.RECEIPTS, scopes) });
  const deps = upgradeDeps(bindings);
  return { ...deps, ...wrap(deps) };
}
