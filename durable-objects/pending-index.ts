/**
 * The pending-intents index entry of one scope lock in R2 (docs/storage.md, "R2 pending-intents
 * index"): present while the lock is free and still keeps intents no receipt holds (a holder of a
 * version before 0.2.0 died or its final save failed; upgrading only), so the sweep finds the scope
 * even when no run of it ever comes again. Like the held-lock index it only says where to look: the
 * sweep recovers the scope through the engine, whose grant hands the intents over, and the lock
 * deletes the entry once they are settled.
 */
import type { Env } from "../shared/env";
import { pendingIntentsIndexKey } from "../shared/lock-index";
import type { LeaseStore } from "./lease-store";
import type { PendingIntents } from "./pending-intents";

export class PendingIndex {
  readonly #env: Env;
  readonly #ctx: DurableObjectState;
  readonly #store: LeaseStore;
  readonly #pending: PendingIntents;
  #sync: Promise<void> = Promise.resolve();

  constructor(env: Env, ctx: DurableObjectState, store: LeaseStore, pending: PendingIntents) {
    this.#env = env;
    this.#ctx = ctx;
    this.#store = store;
    this.#pending = pending;
  }

  /** Whether the entry in R2 is not known to match the state (a put or delete failed). */
  get outOfStep(): boolean {
    const wanted = this.#store.lease() === null && this.#pending.count() > 0;
    return wanted !== (this.#store.meta("pending_indexed") === "1");
  }

  /** After a lease ends or intents are settled: put or delete the entry in the background. */
  syncLater(): void {
    this.#ctx.waitUntil(this.sync());
  }

  /** Chained; each link reads the state when it runs, so the last one reflects the latest. */
  sync(): Promise<void> {
    this.#sync = this.#sync
      .then(async () => {
        const key = this.#store.key;
        if (!key) return;
        const wanted = this.#store.lease() === null && this.#pending.count() > 0;
        const marked = this.#store.meta("pending_indexed") === "1";
        if (wanted === marked) return;
        try {
          if (wanted) await this.#env.RECEIPTS.put(pendingIntentsIndexKey(key), JSON.stringify({ key }));
          else await this.#env.RECEIPTS.delete(pendingIntentsIndexKey(key));
          this.#store.setMeta("pending_indexed", wanted ? "1" : "0");
        } catch (err) {
          // Retried by the next end of a lease or settle, and by the alarm.
          console.warn(`pending-intents index update for ${key} failed: ${String(err)}`);
        }
      })
      .catch((err) => console.warn(`pending-intents index sync failed: ${String(err)}`));
    return this.#sync;
  }
}
