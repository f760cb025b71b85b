/**
 * Answers to waiters whose changes another run wrote (lease-schema.ts, migrations 5 and 10; docs/storage.md).
 * Stored in the same transaction as the ownership they record, so a waiter whose call was lost (an
 * object restart, a vanished caller) finds its answer when it re-joins; deleted once delivered and
 * aged out after ANSWER_KEEP_MS.
 */
import { z } from "zod";
import { type CombinedAnswer, combinedOutcomeSchema } from "../shared/schemas/combine";

/**
 * How long an undelivered answer is kept. A waiter re-joins within its wait timeout (minutes);
 * after this a caller that never came back will not come, and its run's intents cover it.
 */
export const ANSWER_KEEP_MS = 15 * 60_000;

export interface StoredAnswer {
  answer: CombinedAnswer;
  /** Every change the waiter brought was written: it needs no lease at all. */
  complete: boolean;
  at: number;
}

const outcomesSchema = z.array(combinedOutcomeSchema);

export function readAnswer(sql: SqlStorage, waiter: string): StoredAnswer | null {
  const row = sql
    .exec<{
      by_holder: string;
      by_repository: number | null;
      token: number;
      outcomes: string;
      complete: number;
      at: number;
    }>(
      "SELECT by_holder, by_repository, token, outcomes, complete, at FROM combined_answers WHERE waiter = ?",
      waiter,
    )
    .toArray()[0];
  if (!row) return null;
  // Rows read back are validated like any other input: a bad row is dropped, not trusted.
  const outcomes = outcomesSchema.safeParse(JSON.parse(row.outcomes));
  if (!outcomes.success) {
    deleteAnswer(sql, waiter);
    return null;
  }
  return {
    answer: {
      by: row.by_holder,
      ...(row.by_repository !== null ? { repository: row.by_repository } : {}),
      token: row.token,
      outcomes: outcomes.data,
    },
    complete: row.complete === 1,
    at: row.at,
  };
}

export function storeAnswer(sql: SqlStorage, waiter: string, stored: StoredAnswer): void {
  sql.exec(
    `INSERT INTO combined_answers (waiter, by_holder, by_repository, token, outcomes, complete, at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (waiter) DO UPDATE SET by_holder = excluded.by_holder,
       by_repository = excluded.by_repository, token = excluded.token,
       outcomes = excluded.outcomes, complete = excluded.complete, at = excluded.at`,
    waiter,
    stored.answer.by,
    stored.answer.repository ?? null,
    stored.answer.token,
    JSON.stringify(stored.answer.outcomes),
    stored.complete ? 1 : 0,
    stored.at,
  );
}

export function deleteAnswer(sql: SqlStorage, waiter: string): void {
  sql.exec("DELETE FROM combined_answers WHERE waiter = ?", waiter);
}

/** Deletes answers older than ANSWER_KEEP_MS; returns when the oldest remaining one is due, or null. */
export function pruneAnswers(sql: SqlStorage, now: number): number | null {
  sql.exec("DELETE FROM combined_answers WHERE at <= ?", now - ANSWER_KEEP_MS);
  const row = sql.exec<{ oldest: number | null }>("SELECT MIN(at) AS oldest FROM combined_answers").one();
  return row.oldest === null ? null : row.oldest + ANSWER_KEEP_MS;
}
