/**
 * An admin's holds on the lock (docs/design.md, "Lease protocol: holds"): the `holds` table
 * (migration 8; docs/storage.md), set, lift, the refusal that names a hold, and the alarm's part,
 * which records each expiry in the audit trail. At most one hold is in force (`until` in the
 * future, the newest row); rows whose `until` has passed wait for the alarm to record their expiry,
 * then are deleted. A hold only blocks grants: the lease core folds its end into the time before
 * which nobody is granted, like a lock-delay an admin sets. Synchronous SQL, effects returned.
 */
import { z } from "zod";
import type { Env } from "../shared/env";
import { fail, ok, type Result } from "../shared/errors";
import {
  type HoldAudit,
  type HoldOutcome,
  type HoldView,
  holdExpiryAuditKey,
  holdReasonSchema,
  MAX_HOLD_SECONDS,
} from "../shared/schemas/hold";
import type { LeaseStore } from "./lease-store";
import { announce, arm, type Effect, type Step } from "./lock-effects";

export interface HoldRow extends HoldView {
  /** Its row id: an expiry's audit record is keyed by it (shared/schemas/hold.ts). */
  id: number;
}

export type HoldRequest = { key: string; reason: string; by: string; ttlMs: number };

/** The RPC's own bounds (the route's are narrower: a minute at least). */
const holdRequestSchema = z.object({
  key: z.string().min(1),
  reason: holdReasonSchema,
  by: z.string().min(1).max(200),
  ttlMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_HOLD_SECONDS * 1000),
});

type Row = { id: number; reason: string; by_actor: string; since: number; until: number };

const COLUMNS = "id, reason, by_actor, since, until";

function holdOf(row: Row): HoldRow {
  return { id: row.id, reason: row.reason, by: row.by_actor, since: row.since, until: row.until };
}

export function holdView({ reason, by, since, until }: HoldRow): HoldView {
  return { reason, by, since, until };
}

/** A hold request within the RPC's bounds, or VALIDATION. */
export function checkHold(req: HoldRequest): Result<HoldRequest> {
  const parsed = holdRequestSchema.safeParse(req);
  return parsed.success ? ok(parsed.data) : fail("VALIDATION", `hold refused: ${parsed.error.message}`);
}

/**
 * LOCK_HELD for a run that needs a held lock: names the hold (why, who, until when), says what to
 * do, and how long to wait (`retryAfterSeconds`, sent as `Retry-After`). Pure: `now` is passed in.
 */
export function holdRefusal(
  hold: HoldRow,
  at: { key: string; now: number; leaseEnd: number; position: number | undefined },
): Result<never> {
  const { key, now, position } = at;
  const grantable = Math.max(hold.until, at.leaseEnd);
  const until = new Date(hold.until).toISOString();
  return fail(
    "LOCK_HELD",
    // The reason is the admin's sentence; its own final full stop is not doubled.
    `${key} is on hold until ${until}, set by ${hold.by}: ${hold.reason.replace(/[.\s]+$/, "")}. ` +
      `Runs that need it are refused until then: retry after ${new Date(grantable).toISOString()}, or an admin can lift it ` +
      `with \`sponson unhold ${key}\`.`,
    {
      lock: key,
      holder: { hold: { reason: hold.reason, by: hold.by, until: hold.until } },
      expiresAt: hold.until,
      retryAfterSeconds: Math.max(1, Math.ceil((grantable - now) / 1000)),
      ...(position === undefined ? {} : { position }),
    },
  );
}

export class LockHolds {
  readonly #sql: SqlStorage;
  readonly #store: LeaseStore;
  readonly #env: Env;

  constructor(sql: SqlStorage, store: LeaseStore, env: Env) {
    this.#sql = sql;
    this.#store = store;
    this.#env = env;
  }

  /** The hold in force at `now`, or null; every caller passes its own clock reading. */
  inForce(now: number): HoldRow | null {
    const row = this.#sql
      .exec<Row>(`SELECT ${COLUMNS} FROM holds WHERE until > ? ORDER BY id DESC LIMIT 1`, now)
      .toArray()[0];
    return row ? holdOf(row) : null;
  }

  /** Until when no grant may be made for a hold (0: none in force). */
  until(now: number): number {
    return this.inForce(now)?.until ?? 0;
  }

  /** The hold in force, as the lock's state shows it. */
  view(now: number): HoldView | undefined {
    const hold = this.inForce(now);
    return hold ? holdView(hold) : undefined;
  }

  /**
   * Sets a checked hold (replacing one in force). The lease already held goes on: a hold only
   * blocks the next grant.
   */
  set(req: HoldRequest, now: number): Step<HoldOutcome> {
    const { reason, by, ttlMs } = req;
    const replaced = this.#lift(now);
    const until = now + ttlMs;
    this.#sql.exec(
      "INSERT INTO holds (reason, by_actor, since, until) VALUES (?, ?, ?, ?)",
      reason,
      by,
      now,
      until,
    );
    const id = this.#sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id;
    const hold: HoldRow = { id, reason, by, since: now, until };
    const note = `until ${new Date(until).toISOString()}: ${reason}`;
    this.#store.record(now, "hold-set", by, this.#store.lastToken(), note);
    const result = { hold: holdView(hold), previous: replaced ? holdView(replaced) : null, at: now };
    return { result, effects: [arm(until), announce("held")] };
  }

  /** Lifts the hold in force, if any (answered, for the audit). */
  lift(req: { key: string; actor: string }, now: number): Step<HoldRow | null> {
    const lifted = this.#lift(now);
    if (!lifted) return { result: null, effects: [] };
    const store = this.#store;
    store.remember(req.key, null);
    store.record(now, "hold-lifted", req.actor, store.lastToken(), `set by ${lifted.by}: ${lifted.reason}`);
    return { result: lifted, effects: [announce("free")] };
  }

  /**
   * The alarm's part: re-arms for the hold in force, and records every hold that ended by itself
   * in the audit trail (then forgets it). A failed put keeps the row: true asks for a retry.
   */
  async settle(now: number): Promise<Step<boolean>> {
    const store = this.#store;
    const live = this.inForce(now);
    const effects: Effect[] = live ? [arm(live.until)] : [];
    let retry = false;
    const expired = this.#sql
      .exec<Row>(`SELECT ${COLUMNS} FROM holds WHERE until <= ? ORDER BY id`, now)
      .toArray()
      .map(holdOf);
    for (const hold of expired) {
      const key = store.key ?? "";
      try {
        const audit = JSON.stringify(expiry(key, hold));
        await this.#env.RECEIPTS.put(holdExpiryAuditKey(key, hold.id, hold.until), audit, {
          httpMetadata: { contentType: "application/json" },
        });
      } catch (err) {
        console.warn(`hold expiry audit for ${key} failed: ${String(err)}`);
        retry = true;
        continue;
      }
      this.#sql.exec("DELETE FROM holds WHERE id = ?", hold.id);
      store.record(hold.until, "hold-expired", hold.by, store.lastToken(), hold.reason);
    }
    return { result: retry, effects };
  }

  /** Deletes the hold in force at `now`, answering it (null: none). */
  #lift(now: number): HoldRow | null {
    const live = this.inForce(now);
    if (live) this.#sql.exec("DELETE FROM holds WHERE id = ?", live.id);
    return live;
  }
}

function expiry(key: string, hold: HoldRow): HoldAudit {
  return { key, action: "expire", actor: null, reason: hold.reason, hold: holdView(hold), at: hold.until };
}
