/**
 * The held-lock index entry of one lock object in R2 (docs/storage.md, "R2 held-lock index"). The
 * index is a listing aid, not part of the lease: transitions answer from the object's own storage
 * and leave the R2 write running behind them. They only ever add a missing entry (a lock that is
 * already indexed costs no R2 call), for every held lease from its grant: a view of the locks is
 * only true if a lease is listed from its first second, and a repository-bound caller finds its
 * own runs through the listing (docs/security.md, "Repository isolation"). The entry of a freed
 * lock is deleted by the alarm or the next read. A failed or lost write is repaired by the next
 * transition, read or alarm (docs/storage.md, "When an index update is lost").
 */
import type { Env } from "../shared/env";
import { heldIndexKey } from "../shared/lock-index";
import { lockKind } from "../shared/lock-keys";
import type { LeaseStore } from "./lease-store";

export class HeldIndex {
  readonly #env: Env;
  readonly #ctx: DurableObjectState;
  readonly #store: LeaseStore;
  #sync: Promise<void> = Promise.resolve();
  #queued = false;
  /** The queued sync may also delete an entry (a read or the alarm asked for it). */
  #exact = false;

  /** Tells open dashboards the lock is now listed (the notice at its grant found it unlisted). */
  readonly #listed: () => void;
  /** An admin's hold is in force: a held lock is listed even while nobody holds its lease. */
  readonly #onHold: () => boolean;

  constructor(
    env: Env,
    ctx: DurableObjectState,
    store: LeaseStore,
    hooks: { listed?: () => void; onHold?: () => boolean } = {},
  ) {
    this.#env = env;
    this.#ctx = ctx;
    this.#store = store;
    this.#listed = hooks.listed ?? (() => {});
    this.#onHold = hooks.onHold ?? (() => false);
  }

  /** Whether the entry was last written as present (meta.indexed). */
  get marked(): boolean {
    return this.#store.meta("indexed") === "1";
  }

  /** After a transition: adds a missing entry in the background, never delaying the answer. */
  syncLater(): void {
    this.#ctx.waitUntil(this.sync(false));
  }

  /**
   * Another run asked for the held lock (it queued, or was refused): the returned promise settles
   * once the entry its grant queued is written, so a refused caller is answered only once a
   * listing names who holds the lock.
   */
  listContended(): Promise<void> {
    return this.sync(false);
  }

  /**
   * Bring the R2 index entry in line with the current state (`exact`: also delete the entry of a
   * free lock). Calls are chained and each reads the state when it runs, so the last one to finish
   * always reflects the latest transition.
   */
  sync(exact: boolean): Promise<void> {
    if (exact) this.#exact = true;
    // One queued sync covers every transition before it starts (it reads the state when it runs),
    // so a burst of transitions costs at most one R2 write in flight and one queued behind it.
    if (this.#queued) return this.#sync;
    this.#queued = true;
    this.#sync = this.#sync
      .then(async () => {
        this.#queued = false;
        const deleteFree = this.#exact;
        this.#exact = false;
        const key = this.#store.key;
        if (!key) return;
        const lease = this.#store.lease();
        const held = lease !== null || this.#onHold();
        const marked = this.marked;
        if (held === marked || (!held && !deleteFree)) return;
        try {
          if (held) {
            const body = JSON.stringify({ key, kind: lockKind(key), identity: this.#store.identity });
            await this.#env.RECEIPTS.put(heldIndexKey(key), body);
          } else {
            await this.#env.RECEIPTS.delete(heldIndexKey(key));
          }
          this.#store.setMeta("indexed", held ? "1" : "0");
          if (held) this.#listed();
        } catch (err) {
          // A lost index update is repaired by the next transition or alarm; the listing re-reads
          // every indexed lock from its own object, so a stale entry is never shown as held.
          console.warn(`lock index update for ${key} failed: ${String(err)}`);
        }
      })
      // Nothing above is meant to throw, but a rejected link would skip every later sync.
      .catch((err) => {
        this.#queued = false;
        console.warn(`lock index sync failed: ${String(err)}`);
      });
    return this.#sync;
  }
}
