/**
 * The lease row, its history and the object's meta values (lease-schema.ts; docs/storage.md), and
 * the three writes a transition makes to them: grant, extend, free. Synchronous SQL over the
 * object's own storage: no other call interleaves inside one transition. The lock object decides
 * when a transition happens (lease-rules.ts); this only makes it durable.
 */

import { LOCK_DELAY_MS } from "../shared/lease-defaults";
import type { HistoryEntry, LeaseGrant, Transition } from "../shared/schemas/lock";
import { type RunOrigin, runOriginSchema } from "../shared/schemas/provenance";
import { type LeaseEnding, type LeaseRow, quietUntil } from "./lease-rules";
import { announce, arm, type Effect, type Step } from "./lock-effects";

/** The longest receipt etag a release may hand over (R2's are 32 hex digits). */
const MAX_RECEIPT_ETAG_LENGTH = 200;

export const HISTORY_LIMIT = 50;

/** The meta table's keys, one per fact (docs/storage.md, "meta"): nothing else is written there. */
export type MetaKey =
  | "key"
  | "identity"
  | "last_token"
  | "takeovers"
  | "lock_delay_ms"
  | "quiet_until"
  /** "release" while the stored quiet period is one a quiet release started. */
  | "quiet_after"
  | "indexed"
  | "pending_indexed"
  | "receipt_etag"
  | "force_released"
  | "expired_lease"
  | "owners_rebuilt"
  | "fill_levels";

export class LeaseStore {
  readonly #sql: SqlStorage;
  /** meta.key and meta.identity, which never change once written: kept to spare a read per call. */
  #key: string | null = null;
  #identity: string | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Reads the cached meta values; called once the schema is migrated. */
  load(): void {
    this.#key = this.meta("key");
    this.#identity = this.meta("identity");
  }

  get key(): string | null {
    return this.#key;
  }

  get identity(): string | null {
    return this.#identity;
  }

  /** Stores the lock's key (and identity) the first time a call names them. */
  remember(key: string, identity: string | null): void {
    if (this.#key === null) {
      this.setMeta("key", key);
      this.#key = key;
    }
    if (identity && this.#identity === null) {
      this.setMeta("identity", identity);
      this.#identity = identity;
    }
  }

  lease(): LeaseRow | null {
    const rows = this.#sql
      .exec<{
        holder: string;
        token: number;
        acquired_at: number;
        expires_at: number;
        ttl_ms: number;
        claim_pending: number;
        origin: string | null;
      }>(
        "SELECT holder, token, acquired_at, expires_at, ttl_ms, claim_pending, origin FROM lease WHERE id = 1",
      )
      .toArray();
    const row = rows[0];
    if (!row) return null;
    return {
      holder: row.holder,
      token: row.token,
      acquiredAt: row.acquired_at,
      expiresAt: row.expires_at,
      ttlMs: row.ttl_ms,
      claimPending: row.claim_pending === 1,
      origin: originOf(row.origin),
    };
  }

  grantOf(lease: LeaseRow): LeaseGrant {
    return this.#withReceiptEtag({
      key: this.#key ?? "",
      holder: lease.holder,
      token: lease.token,
      acquiredAt: lease.acquiredAt,
      expiresAt: lease.expiresAt,
    });
  }

  /**
   * The receipt etag the last holder saved with and released with (docs/design.md, "Run algorithm":
   * one receipt read per run), kept only while it is known true: set by that release alone, and
   * forgotten by every other end of a lease (an expired or force-released holder may have saved
   * after it) and by a takeover. Every grant and renewal of the next lease answers it.
   */
  /** A release's etag is the caller's: one that is not a plausible etag is kept as none. */
  handOverReceiptEtag(etag: unknown): void {
    const valid = typeof etag === "string" && etag.length > 0 && etag.length <= MAX_RECEIPT_ETAG_LENGTH;
    if (!valid) this.#sql.exec("DELETE FROM meta WHERE k = 'receipt_etag'");
    else this.setMeta("receipt_etag", etag);
  }

  #withReceiptEtag(grant: LeaseGrant): LeaseGrant {
    const etag = this.meta("receipt_etag");
    return etag === null ? grant : { ...grant, receiptEtag: etag };
  }

  /** A new lease under a fresh token; with `claimWindowMs` it is provisional until claimed. */
  write(
    who: { holder: string; ttlMs: number; origin: RunOrigin | null },
    now: number,
    transition: Transition,
    note: string | null,
    timing: { claimWindowMs?: number; lockDelayMs?: number } = {},
  ): Step<LeaseGrant> {
    const { holder, ttlMs, origin } = who;
    const claimWindowMs = timing.claimWindowMs ?? null;
    const lockDelayMs = timing.lockDelayMs ?? LOCK_DELAY_MS;
    // The fencing token is persisted before it is handed out, so it survives eviction and is never reused.
    const token = this.lastToken() + 1;
    // A takeover ends a lease that never released: its holder may have saved the receipt since.
    if (transition === "taken-over") this.handOverReceiptEtag(null);
    this.setMeta("last_token", String(token));
    this.setMeta("lock_delay_ms", String(lockDelayMs));
    // An unclaimed grant is only valid until its claim deadline; the claim extends it to the TTL.
    const pending = claimWindowMs !== null;
    const expiresAt = now + (pending ? Math.min(ttlMs, claimWindowMs) : ttlMs);
    this.#sql.exec(
      `INSERT INTO lease (id, holder, token, acquired_at, expires_at, ttl_ms, claim_pending, origin)
       VALUES (1, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, token = excluded.token,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, ttl_ms = excluded.ttl_ms,
         claim_pending = excluded.claim_pending, origin = excluded.origin`,
      holder,
      token,
      now,
      expiresAt,
      ttlMs,
      pending ? 1 : 0,
      origin === null ? null : JSON.stringify(origin),
    );
    this.record(now, transition, holder, token, note);
    const grant = this.#withReceiptEtag({ key: this.#key ?? "", holder, token, acquiredAt: now, expiresAt });
    const result = pending ? { ...grant, claimBy: expiresAt } : grant;
    return { result, effects: [arm(expiresAt), announce("held")] };
  }

  /** Renews (or claims, if the grant was still provisional) the live lease of its own holder. */
  extend(lease: LeaseRow, ttlMs: number, now: number, note: string | null): Step<LeaseRow> {
    const expiresAt = Math.max(lease.expiresAt, now + ttlMs);
    this.#sql.exec(
      "UPDATE lease SET expires_at = ?, ttl_ms = ?, claim_pending = 0 WHERE id = 1",
      expiresAt,
      ttlMs,
    );
    this.record(now, lease.claimPending ? "claimed" : "renewed", lease.holder, lease.token, note);
    return { result: { ...lease, expiresAt, ttlMs, claimPending: false }, effects: [arm(expiresAt)] };
  }

  /** Frees the lease as `end` says, keeping the quiet period it leaves (lease-rules.ts quietUntil). */
  free(end: LeaseEnding, lease: LeaseRow, note: string | null): Effect[] {
    const effects: Effect[] = [];
    this.#sql.exec("DELETE FROM lease WHERE id = 1");
    // Only a holder's own timely release hands a receipt etag on (`release` sets it after this).
    this.handOverReceiptEtag(null);
    // The lock-delay outlives the row: the next grant waits for it, also across restarts.
    const quiet = quietUntil(lease, end, this.lockDelayMs());
    if (quiet > Math.max(end.at, this.quietUntil(end.at))) {
      this.setMeta("quiet_until", String(quiet));
      // What started it, for a refusal that says only what is so (lease-rules.ts heldRefusal).
      if (end.quiet === true) this.setMeta("quiet_after", "release");
      else this.deleteMeta("quiet_after");
      effects.push(arm(quiet));
    }
    this.record(end.at, end.how, lease.holder, lease.token, note);
    // The alarm stays armed: when it fires on the free lock it deletes the index entry (and ages
    // out stored combining answers), so a lock released and taken again before then pays no R2
    // write and no alarm write at all.
    effects.push(announce("free"));
    return effects;
  }

  record(at: number, transition: Transition, holder: string, token: number, note: string | null): void {
    this.#sql.exec(
      "INSERT INTO history (at, transition, holder, token, note) VALUES (?, ?, ?, ?, ?)",
      at,
      transition,
      holder,
      token,
      note,
    );
    this.#sql.exec("DELETE FROM history WHERE seq <= (SELECT MAX(seq) FROM history) - ?", HISTORY_LIMIT);
  }

  history(): HistoryEntry[] {
    return this.#sql
      .exec<{ at: number; transition: Transition; holder: string; token: number; note: string | null }>(
        "SELECT at, transition, holder, token, note FROM history ORDER BY seq",
      )
      .toArray()
      .map(({ note, ...rest }) => (note === null ? rest : { ...rest, note }));
  }

  meta(k: MetaKey): string | null {
    const row = this.#sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", k).toArray()[0];
    return row ? row.v : null;
  }

  setMeta(k: MetaKey, v: string): void {
    this.#sql.exec(
      "INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      k,
      v,
    );
  }

  deleteMeta(k: MetaKey): void {
    this.#sql.exec("DELETE FROM meta WHERE k = ?", k);
  }

  bump(k: MetaKey): void {
    this.setMeta(k, String(Number(this.meta(k) ?? "0") + 1));
  }

  /** The lock-delay the live (or last) lease asked for. */
  lockDelayMs(): number {
    const v = this.meta("lock_delay_ms");
    return v === null ? LOCK_DELAY_MS : Number(v);
  }

  /**
   * Until when no grant may be made: the lock-delay of an ended lease (kept in meta), or of the
   * live row once it has expired.
   */
  quietUntil(now: number): number {
    return Math.max(this.#storedQuiet(), this.#pendingQuiet(now));
  }

  /** What started the quiet period `quietUntil` answers: a quiet release, else an expiry. */
  quietAfter(now: number): "expiry" | "release" {
    const release = this.meta("quiet_after") === "release" && this.#storedQuiet() >= this.#pendingQuiet(now);
    return release ? "release" : "expiry";
  }

  #storedQuiet(): number {
    return Number(this.meta("quiet_until") ?? "0");
  }

  /** The lock-delay of the live row once it has expired (not freed yet). */
  #pendingQuiet(now: number): number {
    const lease = this.lease();
    if (!lease || now < lease.expiresAt) return 0;
    return quietUntil(lease, { how: "expired", at: now }, this.lockDelayMs());
  }

  lastToken(): number {
    return Number(this.meta("last_token") ?? "0");
  }
}

/** A stored origin read back (validated: a row is a trust boundary too); null if absent or unreadable. */
function originOf(stored: string | null): RunOrigin | null {
  if (stored === null) return null;
  try {
    const parsed = runOriginSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
