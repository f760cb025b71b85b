/**
 * Intents a scope lock of a version before 0.2.0 kept for its holders (that version made a
 * group's intents durable here, not in the receipt). No lock takes new ones: the receipt is their
 * one home (docs/design.md, "Writing one object's items"). What a holder that died left here stays
 * until a holder's release vouches that its receipt save holds every one still unresolved; until
 * then each grant hands them to the next holder, whose recovery resolves them (docs/design.md,
 * "Intent recovery": upgrading). Each carries the number that lock gave its put (`lockSeq`).
 */
import { type Intent, intentSchema } from "../shared/schemas/receipt";

export class PendingIntents {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
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
