/**
 * Upgrading only: deleted in 0.4.0 with workers/upgrade/ (docs/upgrading.md, "Intents kept by scope
 * locks of 0.1.x"). A scope lock of 0.1.x made a group's intents durable here (`pending_intents`,
 * migration 7, each body numbered by the lock: `lockSeq`) and kept what a holder that died left.
 * No lock takes new ones; this is the one place in the object that still reads them:
 *
 * - every grant and claim of a lock still keeping some says so (`legacyIntents`), and a run refuses
 *   it, so no run of the scope interleaves with them before the upgrade's drain;
 * - the pending-intents index entry in R2 names such a lock for the upgrade to find: 0.1.x wrote it
 *   when a lease ended, and the object loading with rows and no entry writes it now (a lease of
 *   0.1.x that ended since did not); it goes once no row is left;
 * - `drain` answers the rows to the holder of the scope lease, and drops those the holder's drain
 *   saved in the receipt first (workers/upgrade/drain-legacy-intents.ts): read, save, drop, so a
 *   crash between any two loses nothing.
 */
import type { Env } from "../shared/env";
import { ok, type Result } from "../shared/errors";
import { legacyIntentsIndexKey } from "../shared/lock-index";
import type { FencedRequest, LegacyIntentRef } from "../shared/rpc/lease-lock";
import type { LeaseGrant } from "../shared/schemas/lock";
import { type Intent, intentSchema } from "../shared/schemas/receipt";
import type { LegacyContext } from "./lease-core";

/** Meta key: "1" while the index entry is known to exist, "0" once known to be gone. */
const INDEXED = "pending_indexed";

/** The row's primary key, as 0.1.x wrote it: one run's action on one item. */
function rowId(ref: LegacyIntentRef): string {
  return JSON.stringify([ref.runId, ref.action, ref.op, ref.key, ref.parent]);
}

export class LegacyIntents {
  readonly #core: LegacyContext;
  readonly #ctx: DurableObjectState;
  readonly #env: Env;
  /** Rows kept: counted once when the object starts (no row is ever added), then by each drain. */
  #rows: number;
  #sync: Promise<void> = Promise.resolve();

  constructor(core: LegacyContext, ctx: DurableObjectState, env: Env) {
    this.#core = core;
    this.#ctx = ctx;
    this.#env = env;
    this.#rows = this.#count();
  }

  /** Once the object's meta is loaded: a lock keeping rows that no index entry names gets one. */
  loaded(): void {
    if (this.#rows > 0 && this.#core.store.meta(INDEXED) !== "1") this.#ctx.waitUntil(this.#syncIndex());
  }

  /** A grant or claim, marked while rows remain (no field otherwise: the live path's answer). */
  flag(result: Result<LeaseGrant>): Result<LeaseGrant> {
    if (this.#rows === 0 || !result.ok) return result;
    return ok({ ...result.value, legacyIntents: true });
  }

  /** The holder of the scope lease only: drops the rows `drop` names, answers those left. */
  async drain(req: FencedRequest & { drop?: LegacyIntentRef[] }): Promise<Result<Intent[]>> {
    const refused = this.#core.fence(req, Date.now());
    if (refused) return refused;
    for (const ref of req.drop ?? [])
      this.#core.sql.exec("DELETE FROM pending_intents WHERE id = ?", rowId(ref));
    this.#rows = this.#count();
    const left = this.#core.sql
      .exec<{ body: string }>("SELECT body FROM pending_intents ORDER BY at, id")
      .toArray()
      .map((row) => intentSchema.parse(JSON.parse(row.body)));
    // Awaited, and whatever the lock believes R2 holds: the upgrade found it through the entry, and
    // its report says a lock is drained only once the entry is gone too.
    await this.#syncIndex(true);
    return ok(left);
  }

  #count(): number {
    return this.#core.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pending_intents").one().n;
  }

  /**
   * Chained; each link reads the state when it runs. `always`: writes even when the lock believes R2
   * is in step. A failed write is retried by the next drain or load.
   */
  #syncIndex(always = false): Promise<void> {
    this.#sync = this.#sync.then(async () => {
      const key = this.#core.store.key;
      if (key === null) return;
      const wanted = this.#rows > 0;
      if (!always && wanted === (this.#core.store.meta(INDEXED) === "1")) return;
      try {
        if (wanted) await this.#env.RECEIPTS.put(legacyIntentsIndexKey(key), JSON.stringify({ key }));
        else await this.#env.RECEIPTS.delete(legacyIntentsIndexKey(key));
        this.#core.store.setMeta(INDEXED, wanted ? "1" : "0");
      } catch (err) {
        console.warn(`pending-intents index update for ${key} failed: ${String(err)}`);
      }
    });
    return this.#sync;
  }
}
