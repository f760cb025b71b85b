/**
 * Intents a scope lock keeps for its holders (docs/design.md, "Writing one object's items"): a run's
 * intents for one group are durable here, put with a token-checked call that also renews the lease,
 * before the run asks for the group's parent lease. They stay until a holder's release vouches that
 * its final receipt save holds every one still unresolved; until then each grant hands them to the
 * next holder, whose recovery resolves them (docs/design.md, "Intent recovery").
 */
import { z } from "zod";
import { type Intent, intentSchema } from "../shared/schemas/receipt";

/** More intents than one plan has lines, twice over (a create and a remove per item). */
export const MAX_PENDING_INTENTS = 1_000;

export const putIntentsSchema = z.array(intentSchema).max(MAX_PENDING_INTENTS);

/** One row per run, item and action: a later put of the same replaces it (receipt-session.ts addIntent). */
function idOf(intent: Intent): string {
  return JSON.stringify([intent.runId, intent.action, intent.op, intent.key, intent.parent]);
}

export class PendingIntents {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Keeps `intents` under the next sequence number, which it returns (persisted, never reused). */
  put(intents: readonly Intent[]): number {
    const seq = this.lastSeq() + 1;
    this.#sql.exec(
      "INSERT INTO meta (k, v) VALUES ('intent_seq', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      String(seq),
    );
    for (const intent of intents) {
      this.#sql.exec(
        `INSERT INTO pending_intents (id, body, at) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET body = excluded.body, at = excluded.at`,
        idOf(intent),
        JSON.stringify({ ...intent, lockSeq: seq }),
        intent.at,
      );
    }
    return seq;
  }

  /** The last sequence number a put was given (0: none yet). */
  lastSeq(): number {
    const row = this.#sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = 'intent_seq'").toArray()[0];
    return row ? Number(row.v) : 0;
  }

  all(): Intent[] {
    return this.#sql
      .exec<{ body: string }>("SELECT body FROM pending_intents ORDER BY at, id")
      .toArray()
      .map((row) => intentSchema.parse(JSON.parse(row.body)));
  }

  count(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pending_intents").one().n;
  }

  clear(): void {
    this.#sql.exec("DELETE FROM pending_intents");
  }
}
