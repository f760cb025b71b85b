/**
 * The recent-writes table of a lock object (lease-schema.ts, migration 6; docs/storage.md): the
 * latest write of each item, kept until its `until`. Plain SQL over the object's own storage: the
 * lease object decides who may call these (the current holder).
 */
import { z } from "zod";
import { type RecentWrite, recentWriteSchema } from "../shared/schemas/recent-writes";

/** One write's items, as the holder reports them: bounded, like a combined report. */
export const rememberedWritesSchema = z.array(recentWriteSchema).max(500);

/** Every write still remembered at `now`; older ones are dropped on the way. */
export function liveRecentWrites(sql: SqlStorage, now: number): RecentWrite[] {
  sql.exec("DELETE FROM recent_writes WHERE until <= ?", now);
  return recentWritesAt(sql, now);
}

/** The same, read-only: for readers without the lease (a first look, the orphan search). */
export function recentWritesAt(sql: SqlStorage, now: number): RecentWrite[] {
  return sql
    .exec<{ op: string; item: string; params: string; action: string; at: number; until: number }>(
      "SELECT op, item, params, action, at, until FROM recent_writes WHERE until > ? ORDER BY at, op, item",
      now,
    )
    .toArray()
    .map((r) => ({
      op: r.op,
      key: r.item,
      params: JSON.parse(r.params) as Record<string, string>,
      action: r.action === "remove" ? "remove" : "add",
      at: r.at,
      until: r.until,
    }));
}

/** A later write of an item replaces the earlier one: only its last state matters. */
export function rememberWrites(sql: SqlStorage, writes: readonly RecentWrite[]): void {
  for (const w of writes) {
    sql.exec(
      `INSERT INTO recent_writes (op, item, params, action, at, until) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (op, item) DO UPDATE SET params = excluded.params, action = excluded.action,
         at = excluded.at, until = excluded.until`,
      w.op,
      w.key,
      JSON.stringify(w.params),
      w.action,
      w.at,
      w.until,
    );
  }
}
