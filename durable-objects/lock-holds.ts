/**
 * An admin's holds on the lock (docs/design.md, "Lease protocol: holds"): set, lift, and the
 * alarm's part, which records each expiry in the audit trail. The hold itself only blocks grants
 * (lease-transitions.ts folds its end into the time before which nobody is granted); this module
 * keeps its row (hold-store.ts), the lock's history and the held-lock index in step.
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
import type { HeldIndex } from "./held-index";
import { type HoldRow, holdView } from "./hold-rules";
import type { HoldStore } from "./hold-store";
import type { LeaseStore } from "./lease-store";
import type { LeaseTransitions } from "./lease-transitions";
import type { LockChange } from "./lock-feed";

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

export interface HoldParts {
  env: Env;
  holds: HoldStore;
  store: LeaseStore;
  lease: LeaseTransitions;
  index: HeldIndex;
  armAlarm(at: number): void;
  announce(change: LockChange): void;
}

export class LockHolds {
  readonly #p: HoldParts;

  constructor(parts: HoldParts) {
    this.#p = parts;
  }

  /** The hold in force, as the lock's state shows it. */
  view(now: number): HoldView | undefined {
    const hold = this.#p.holds.inForce(now);
    return hold ? holdView(hold) : undefined;
  }

  /**
   * Sets a hold (replacing one in force). The lease already held goes on: a hold only blocks the
   * next grant. The lock is listed before the answer, held or not.
   */
  async set(req: { key: string; reason: string; by: string; ttlMs: number }): Promise<Result<HoldOutcome>> {
    const parsed = holdRequestSchema.safeParse(req);
    if (!parsed.success) return fail("VALIDATION", `hold refused: ${parsed.error.message}`);
    const { key, reason, by, ttlMs } = parsed.data;
    const { store, holds } = this.#p;
    store.remember(key, null);
    const now = Date.now();
    // Grants already due (an expired hold, a release) happen first: the new hold is not retroactive.
    this.#p.lease.promote(now);
    const { hold, replaced } = holds.set({ reason, by, since: now, until: now + ttlMs });
    store.record(
      now,
      "hold-set",
      by,
      store.lastToken(),
      `until ${new Date(hold.until).toISOString()}: ${reason}`,
    );
    this.#p.armAlarm(hold.until);
    this.#p.announce("held");
    await this.#p.index.listContended();
    return ok({ hold: holdView(hold), previous: replaced ? holdView(replaced) : null, at: now });
  }

  /** Lifts the hold in force (if any) and hands the lock to the first waiter. */
  async lift(req: { key: string; actor: string }): Promise<Result<HoldOutcome>> {
    const { store, holds } = this.#p;
    const now = Date.now();
    const lifted = holds.lift(now);
    if (lifted) {
      store.remember(req.key, null);
      store.record(now, "hold-lifted", req.actor, store.lastToken(), `set by ${lifted.by}: ${lifted.reason}`);
      this.#p.announce("free");
    }
    this.#p.lease.promote(now);
    await this.#p.index.sync(true);
    return ok({ hold: null, previous: lifted ? holdView(lifted) : null, at: now });
  }

  /**
   * The alarm's part: re-arms for the hold in force, and records every hold that ended by itself
   * in the audit trail (then forgets it). A failed put keeps the row: true asks for a retry.
   */
  async settle(now: number): Promise<boolean> {
    const { store, holds, env } = this.#p;
    const live = holds.inForce(now);
    if (live) this.#p.armAlarm(live.until);
    let retry = false;
    for (const hold of holds.expired(now)) {
      const key = store.key ?? "";
      try {
        await env.RECEIPTS.put(
          holdExpiryAuditKey(key, hold.id, hold.until),
          JSON.stringify(expiry(key, hold)),
          {
            httpMetadata: { contentType: "application/json" },
          },
        );
      } catch (err) {
        console.warn(`hold expiry audit for ${key} failed: ${String(err)}`);
        retry = true;
        continue;
      }
      holds.forget(hold.id);
      store.record(hold.until, "hold-expired", hold.by, store.lastToken(), hold.reason);
    }
    return retry;
  }
}

function expiry(key: string, hold: HoldRow): HoldAudit {
  return { key, action: "expire", actor: null, reason: hold.reason, hold: holdView(hold), at: hold.until };
}
