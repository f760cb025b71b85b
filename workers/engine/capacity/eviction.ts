/**
 * Evicting stale scopes (docs/design.md, "Evicting stale scopes"): with the environment's
 * `evictStale`, a write past a list's cap first removes the entries of the caller's repository's
 * stalest stale scopes on that object. Each scope is taken by its own scope lease without waiting
 * (a busy one is skipped), so its receipt is written the way its own runs write it: conditionally,
 * by the lease's holder. The removal itself is part of the one fenced group write
 * (critical-section.ts); this file chooses the scopes and records what was evicted.
 */
import { SponsonError } from "../../../shared/errors";
import type { EvictionNote } from "../../../shared/schemas/eviction";
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import type { LedgerEntry } from "../../../shared/schemas/receipt";
import { ScopeLock } from "../../locks/scope-lock";
import type { StoredReceipt } from "../../receipts/receipt-store";
import { type Item, itemOfRecord, sameItem } from "../plan/item";
import { ownerOf } from "../rules/ownership";
import { runLeaseOptions } from "../run/run-lease";
import type { WriterParts } from "../write/writer-parts";
import type { ListFill } from "./list-fill";
import type { OwnersOf, ScopeShare } from "./list-owners";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A stale scope held for eviction: its lease, its receipt as read under it, its entries there. */
export interface Candidate {
  share: ScopeShare & { stale: "closed" | "idle" };
  owner: string;
  lease: ScopeLock;
  stored: StoredReceipt;
  entries: Array<{ entry: LedgerEntry; item: Item }>;
}

/** The stale scopes to take entries from, and the list's ownership as the same read answered it. */
export interface Choice {
  candidates: Candidate[];
  /** An entry's ownership (op and key), undefined for one that is not on the list as read. */
  ownership(item: Item): ItemOwnership | undefined;
}

const idOf = (op: string, key: string) => `${op}\u0000${key}`;

export class Evictions {
  readonly #w: WriterParts;
  readonly #owners: OwnersOf;
  /** Scopes asked once per group write: null when busy, not evictable or holding nothing here. */
  readonly #taken = new Map<string, Candidate | null>();

  constructor(w: WriterParts, owners: OwnersOf) {
    this.#w = w;
    this.#owners = owners;
  }

  /**
   * The caller's repository's stale scopes holding entries of `fill`'s object, stalest first. The
   * ownership that ranked them says which entries each alone owns: nobody else changes ownership
   * while the parent lease is held, so it is not read again per scope.
   */
  async candidates(fill: ListFill): Promise<Choice> {
    const w = this.#w;
    const { answer, items } = await this.#owners(fill);
    const byId = new Map(items.map((i) => [idOf(i.op, i.key), i]));
    const out: Candidate[] = [];
    for (const share of answer.scopes) {
      if (share.stale === null) continue;
      if (share.environment === w.run.environment && share.scope === w.run.scope) continue;
      const c = await this.#take({ ...share, stale: share.stale }, fill);
      if (c) out.push(c);
    }
    return { candidates: out, ownership: (item) => byId.get(idOf(item.opName, item.key)) };
  }

  async #take(share: Candidate["share"], fill: ListFill): Promise<Candidate | null> {
    const id = `${share.environment}/${share.scope}`;
    if (this.#taken.has(id)) return this.#taken.get(id) ?? null;
    this.#taken.set(id, null);
    const { deps, run } = this.#w;
    let lease: ScopeLock;
    try {
      lease = await ScopeLock.acquire(
        deps.locks.scope(run.repository.id, share.environment, share.scope),
        run.id,
        runLeaseOptions(deps, { wait: false, waitTimeoutMs: 0 }),
      );
    } catch (err) {
      // Busy (a run of its own, a destroy): never waited for under the parent lease.
      if (err instanceof SponsonError && err.code === "LOCK_HELD") return null;
      throw err;
    }
    const address = { repository: run.repository, environment: share.environment, scope: share.scope };
    const stored = await deps.store.read(address);
    const measured = deps.ops.get(fill.op)?.capacity?.measure !== undefined;
    const entries: Candidate["entries"] = [];
    try {
      // A scope with intents to resolve is left to its own next run.
      if (lease.pendingIntents.length > 0 || stored.receipt.intents.length > 0) throw new Error("intents");
      for (const entry of stored.receipt.ledger) {
        if (entry.parent !== fill.object || !(entry.op === fill.op || measured)) continue;
        entries.push({ entry, item: itemOfRecord(entry, deps.ops, deps.connections, share.environment) });
      }
    } catch {
      entries.length = 0;
    }
    if (entries.length === 0) {
      await lease.release();
      return null;
    }
    const c: Candidate = { share, owner: ownerOf(address), lease, stored, entries };
    this.#taken.set(id, c);
    return c;
  }

  /**
   * After the write: each evicted scope's ledger loses the entries now gone from the provider (or
   * no longer its own), its receipt notes the eviction, and the audit trail records it.
   */
  async record(evicted: ReadonlyMap<Candidate, Item[]>): Promise<void> {
    const { deps, run } = this.#w;
    const now = deps.clock.now();
    for (const [c, items] of evicted) {
      if (items.length === 0) continue;
      const first = items[0] as Item;
      const note: EvictionNote = {
        runId: run.id,
        object: first.parent ?? first.key,
        op: first.opName,
        keys: items.map((i) => i.key),
        reason: c.share.stale,
        ...(c.share.stale === "idle" && c.share.lastRunAt !== null
          ? { idleDays: Math.floor((now - c.share.lastRunAt) / DAY_MS) }
          : {}),
        at: now,
      };
      const { receipt, etag } = c.stored;
      const gone = c.entries.filter(({ item }) => items.includes(item)).map(({ entry }) => entry);
      let receiptUpdated = false;
      try {
        const written = await deps.store.write(
          {
            ...receipt,
            ledger: receipt.ledger.filter((e) => !gone.some((g) => sameItem(g, e))),
            evictions: [...(receipt.evictions ?? []), note],
          },
          etag,
        );
        receiptUpdated = true;
        await c.lease.release(written);
      } catch (err) {
        deps.warn?.(`eviction: the receipt of ${c.share.scope} was not updated: ${String(err)}`);
      }
      this.#taken.delete(`${c.share.environment}/${c.share.scope}`);
      if (!receiptUpdated) await c.lease.release().catch(() => {});
      await deps.auditEviction?.({
        ...note,
        actor: `run ${run.id}`,
        repository: run.repository,
        environment: c.share.environment,
        scope: c.share.scope,
        receiptUpdated,
      });
    }
  }

  /** The scope leases taken and not used (or the write failed): given back untouched. */
  async releaseAll(): Promise<void> {
    const held = [...this.#taken.values()].filter((c): c is Candidate => c !== null);
    this.#taken.clear();
    await Promise.all(held.map((c) => c.lease.release().catch(() => {})));
  }
}
