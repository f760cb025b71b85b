/**
 * The scope lock's role over the lease core (docs/design.md, "Run algorithm"). Intents live in the
 * receipt only; what a lock of a version before 0.2.0 kept for a holder that died is handed to
 * each next grant until a holder's final receipt save holds them, with the pending-intents index
 * entry the sweep finds them by (upgrading only: no lock takes new ones).
 */
import type { Env } from "../shared/env";
import { ok, type Result } from "../shared/errors";
import type { ReleaseRequest } from "../shared/rpc/lease-lock";
import type { LeaseGrant } from "../shared/schemas/lock";
import type { Intent } from "../shared/schemas/receipt";
import type { LeaseCore } from "./lease-core";
import { PendingIndex } from "./pending-index";
import { PendingIntents } from "./pending-intents";

export class ScopeLockRole {
  readonly #pending: PendingIntents;
  readonly #pendingIndex: PendingIndex;

  constructor(core: LeaseCore, ctx: DurableObjectState, env: Env) {
    this.#pending = new PendingIntents(core.sql);
    this.#pendingIndex = new PendingIndex(env, ctx, core.store, this.#pending);
  }

  pendingIntents(): Intent[] {
    return this.#pending.all();
  }

  /**
   * A grant, with the intents holders of a version before 0.2.0 left here unsettled (scope
   * locks, upgrading; none: no field).
   */
  withPending(result: Result<LeaseGrant>): Result<LeaseGrant> {
    if (!result.ok) return result;
    const pending = this.#pending.all();
    return ok({ ...result.value, ...(pending.length === 0 ? {} : { pendingIntents: pending }) });
  }

  /**
   * A refused renewal that finds a lease ended (an expiry its alarm has not seen yet) writes the
   * pending-intents entry too, so the sweep finds a dead holder's intents without relying on the
   * alarm alone. An acquire does not: its new holder settles them itself.
   */
  readonly refused = (): void => {
    if (this.#pendingIndex.outOfStep) this.#pendingIndex.syncLater();
  };

  /**
   * Its last save holds every intent still unresolved (a late release too: nobody held the lock
   * since, so nobody else put any): the lock need keep none of them.
   */
  settled(req: ReleaseRequest): void {
    if (req.intentsSettled === true) this.#pending.clear();
  }

  /** After a lease ended: the index entry follows what the lock keeps. */
  ended(): void {
    this.#pendingIndex.syncLater();
  }

  /** On a read: only when out of step (a read is cheap otherwise). */
  async settle(): Promise<void> {
    if (this.#pendingIndex.outOfStep) await this.#pendingIndex.sync();
  }

  /** The alarm's part: a holder that died keeping intents; the sweep finds its scope through the entry. */
  syncIndex(): Promise<void> {
    return this.#pendingIndex.sync();
  }

  get outOfStep(): boolean {
    return this.#pendingIndex.outOfStep;
  }
}
