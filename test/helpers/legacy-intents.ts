/**
 * The state the version before issue 29 left in a scope lock (docs/design.md, "Intent recovery":
 * upgrading): a holder's `putIntents` numbered each put (`meta.intent_seq`) and kept one row per run,
 * item and action in `pending_intents`, each body carrying that number as `lockSeq`. Written here
 * straight into the lock's storage exactly as that version's put did, since no code path writes it
 * any more.
 */
import { runInDurableObject } from "cloudflare:test";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import type { Intent } from "../../shared/schemas/receipt";
import { rawStub } from "./locks";

/** One put of the version before issue 29: returns the number it gave the put. */
export async function putLegacyIntents(key: string, intents: readonly Intent[]): Promise<number> {
  return runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    const sql = state.storage.sql;
    const row = sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = 'intent_seq'").toArray()[0];
    const seq = (row ? Number(row.v) : 0) + 1;
    sql.exec(
      "INSERT INTO meta (k, v) VALUES ('intent_seq', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      String(seq),
    );
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
}

/** The rows a lock keeps, as stored (read-only). */
export async function legacyRows(key: string): Promise<number> {
  return runInDurableObject(
    rawStub(key),
    async (_instance: LeaseLock, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pending_intents").one().n,
  );
}
