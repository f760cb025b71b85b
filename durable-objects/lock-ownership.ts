/**
 * The ownership calls of a lock object (docs/design.md, "Ownership of shared entries") over its
 * owners tables (ownership-store.ts). The lock object fences every call first: only the holder
 * of the live lease reads what it decides from, and only it changes ownership.
 */
import type { Env } from "../shared/env";
import { ownedObjectKey } from "../shared/lock-index";
import type {
  Locator,
  OwnedItem,
  OwnerChange,
  OwnershipRecord,
  OwnershipShares,
  OwnershipView,
} from "../shared/schemas/ownership";
import type { LeaseStore } from "./lease-store";
import {
  allLocators,
  allOwnership,
  applyOwnerChanges,
  readOwnership,
  saveLocator,
  sharesOf,
} from "./ownership-store";

export class LockOwnership {
  readonly #sql: SqlStorage;
  readonly #store: LeaseStore;
  readonly #env: Env;

  constructor(sql: SqlStorage, store: LeaseStore, env: Env) {
    this.#sql = sql;
    this.#store = store;
    this.#env = env;
  }

  /** `shares`: with each owner's and repository's count of the items' ops (a holder's read, a grant). */
  view(items: OwnedItem[], { shares = false }: { shares?: boolean } = {}): OwnershipView {
    return {
      rebuilt: this.#store.meta("owners_rebuilt") === "1",
      listedOps: allLocators(this.#sql).map((l) => l.op),
      items: readOwnership(this.#sql, items),
      ...(shares
        ? {
            shares: sharesOf(
              this.#sql,
              items.map((i) => i.op),
            ),
          }
        : {}),
    };
  }

  /** `rebuilt` marks that ownership was rebuilt from the receipts' ledgers (done once, on upgrade). */
  async change(
    req: { changes: OwnerChange[]; rebuilt?: boolean; locator?: Locator },
    now: number,
  ): Promise<OwnershipView> {
    const store = this.#store;
    applyOwnerChanges(this.#sql, req.changes, now);
    if (req.locator) saveLocator(this.#sql, req.locator);
    // The mark follows a successful index put: marked first, a failed put would hide the object
    // from the orphan search for good (the index is written only while unmarked). Unmarked, the
    // next holder rebuilds (adding owners again changes nothing) and puts again.
    if (req.rebuilt && store.meta("owners_rebuilt") !== "1" && (await this.#putOwnedIndex())) {
      store.setMeta("owners_rebuilt", "1");
    }
    const items = req.changes.map(({ op, key }) => ({ op, key }));
    return this.view(items);
  }

  /** The sweep finds owned objects through this index (objects cannot be listed); true once written. */
  async #putOwnedIndex(): Promise<boolean> {
    const store = this.#store;
    const key = store.meta("key");
    if (!key) return true;
    try {
      await this.#env.RECEIPTS.put(
        ownedObjectKey(key),
        JSON.stringify({ key, identity: store.meta("identity") }),
      );
      return true;
    } catch (err) {
      console.warn(`owned-object index put for ${key} failed (retried by the next holder): ${String(err)}`);
      return false;
    }
  }

  /** Each owner's and repository's count of `ops`' items (ownership-store.ts `sharesOf`). */
  shares(ops: readonly string[]): OwnershipShares {
    return sharesOf(this.#sql, ops);
  }

  /** Every owned or foreign item and where each op's list lives, read-only (views, the sweep). */
  record(): OwnershipRecord {
    return { items: allOwnership(this.#sql), locators: allLocators(this.#sql) };
  }
}
