/**
 * The lock's holds (`holds`, migration 8; docs/storage.md). At most one is in force (`until` in the
 * future, the newest row); rows whose `until` has passed wait for the alarm to record their expiry
 * in the audit trail, then are deleted. Set and lift delete the row in force themselves: the route
 * that asked records them. Synchronous SQL: no other call interleaves inside one method.
 */
import type { HoldRow } from "./hold-rules";

type Row = {
  id: number;
  reason: string;
  by_actor: string;
  since: number;
  until: number;
};

function holdOf(row: Row): HoldRow {
  return { id: row.id, reason: row.reason, by: row.by_actor, since: row.since, until: row.until };
}

export class HoldStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The hold in force at `now`, or null; every caller passes its own clock reading. */
  inForce(now: number): HoldRow | null {
    const row = this.#sql
      .exec<Row>(
        "SELECT id, reason, by_actor, since, until FROM holds WHERE until > ? ORDER BY id DESC LIMIT 1",
        now,
      )
      .toArray()[0];
    return row ? holdOf(row) : null;
  }

  /** Until when no grant may be made for a hold (0: none in force). */
  until(now: number): number {
    return this.inForce(now)?.until ?? 0;
  }

  /** Sets a hold, replacing the one in force (answered, for the audit). */
  set(hold: Omit<HoldRow, "id">): { hold: HoldRow; replaced: HoldRow | null } {
    const replaced = this.lift(hold.since);
    this.#sql.exec(
      "INSERT INTO holds (reason, by_actor, since, until) VALUES (?, ?, ?, ?)",
      hold.reason,
      hold.by,
      hold.since,
      hold.until,
    );
    const id = this.#sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id;
    return { hold: { ...hold, id }, replaced };
  }

  /** Deletes the hold in force at `now`, answering it (null: none). */
  lift(now: number): HoldRow | null {
    const live = this.inForce(now);
    if (live) this.#sql.exec("DELETE FROM holds WHERE id = ?", live.id);
    return live;
  }

  /** Holds that ended by themselves and whose expiry is not recorded yet. */
  expired(now: number): HoldRow[] {
    return this.#sql
      .exec<Row>("SELECT id, reason, by_actor, since, until FROM holds WHERE until <= ? ORDER BY id", now)
      .toArray()
      .map(holdOf);
  }

  /** An expiry recorded: the row goes. */
  forget(id: number): void {
    this.#sql.exec("DELETE FROM holds WHERE id = ?", id);
  }
}
