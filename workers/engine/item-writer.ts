/**
 * The one place provider writes happen (docs/design.md, "Run algorithm"). Under the item's parent
 * lease (if its op names one): read the item's ownership, inspect the provider again, decide, and
 * for a write announce the intent in the receipt, check the fencing token, write from the fresh
 * state, then record the ledger and ownership change. Ownership lives in the parent's own lock
 * object and is changed only with that lease's token (docs/design.md, "Ownership of shared entries").
 */
import { SponsonError } from "../../shared/errors";
import type { Holding, ItemOwnership, Locator, OwnerChange } from "../../shared/schemas/ownership";
import { repositoryRefById } from "../../shared/schemas/repository";
import { Lease } from "../locks/lease";
import { mayName } from "../receipts/parent-tags";
import type { EngineDeps } from "./deps";
import { fencedFetch } from "./fenced-fetch";
import { type Item, recordOf } from "./item";
import type { OpContext } from "./op-spec";
import { decideClaim, decideRelease, ownerOf } from "./ownership";
import type { ProviderContexts } from "./provider-context";
import type { ReceiptSession } from "./receipt-session";
import type { Run } from "./run";

export type WriteAction = "create" | "remove";

/** Where the item's list lives on its object: what the sweep lists to find orphans. */
function locatorOf(item: Item): Locator {
  return { op: item.opName, connection: item.connection, params: item.params };
}
/**
 * `written`: the provider was changed. `already`: it already said what the run wanted.
 * `shared` / `foreign`: the item was there and the scope joined its owners. `left`: others still
 * own the item (or it is foreign), so only the scope's ownership went.
 */
export type WriteOutcome = "written" | "already" | "shared" | "foreign" | "left";

export interface WaitPolicy {
  wait: boolean;
  waitTimeoutMs: number;
}

export class ItemWriter {
  readonly #deps: EngineDeps;
  readonly #run: Run;
  readonly #session: ReceiptSession;
  readonly #scopeLease: Lease;
  readonly #contexts: ProviderContexts;

  constructor(
    deps: EngineDeps,
    run: Run,
    session: ReceiptSession,
    scopeLease: Lease,
    contexts: ProviderContexts,
  ) {
    this.#deps = deps;
    this.#run = run;
    this.#session = session;
    this.#scopeLease = scopeLease;
    this.#contexts = contexts;
  }

  context(item: Item) {
    return this.#contexts.get(item.connection);
  }

  /** Runs `fn` under the item's parent lease; one parent lease at a time, only for this write. */
  async withParent<T>(item: Item, waiting: WaitPolicy, fn: (lease: Lease | null) => Promise<T>): Promise<T> {
    if (item.parent === null || !this.#deps.parentLocks) return fn(null);
    // Never wait for a parent lock without the scope lease still ours.
    this.#scopeLease.assertHeld();
    const target = await this.#deps.locks.parent(item.parent);
    let lease: Lease;
    try {
      lease = await Lease.acquire(target, this.#run.id, {
        ttlMs: this.#deps.ttlMs,
        wait: waiting.wait,
        waitTimeoutMs: waiting.waitTimeoutMs,
        clock: this.#deps.clock,
        onWarning: (m) => this.#run.warn(m),
      });
    } catch (err) {
      if (err instanceof SponsonError && err.code === "LOCK_HELD") {
        throw new SponsonError("LOCK_HELD", `${err.message} (parent ${item.parent})`, {
          ...err.detail,
          parent: item.parent,
        });
      }
      throw err;
    }
    try {
      return await fn(lease);
    } finally {
      await lease.release();
    }
  }

  /** Makes the item present (create) or absent (remove) for this scope, deciding under the lease. */
  async write(item: Item, action: WriteAction, waiting: WaitPolicy): Promise<WriteOutcome> {
    const base = this.context(item);
    return this.withParent(item, waiting, async (lease) => {
      const ctx = { ...base, fetch: fencedFetch(base.fetch, [this.#scopeLease, lease]) };
      const own = await this.#ownership(item, lease, ctx);
      // The read made before the lease may be stale: decide from what is there now.
      const seen = await item.op.inspect(ctx, item.params);
      if (action === "create") {
        const decision = own ? decideClaim(own, seen.present, ownerOf(this.#run)) : null;
        if (decision?.kind === "join") {
          await lease?.changeOwners(decision.changes, { locator: locatorOf(item) });
          return this.#joined(item, decision.holding);
        }
        if (seen.present) return "already";
        return this.#send(
          item,
          "create",
          lease,
          () => item.op.create(ctx, item.params, seen),
          decision?.changes,
        );
      }
      const decision = own ? decideRelease(own, ownerOf(this.#run)) : null;
      if (decision?.kind === "leave" || !seen.present) {
        if (decision) await lease?.changeOwners(decision.changes);
        this.#session.dropLedger(item.line, item.key);
        await this.#session.save();
        return decision?.kind === "leave" ? "left" : "already";
      }
      return this.#send(
        item,
        "remove",
        lease,
        () => item.op.remove(ctx, item.params, seen),
        decision?.changes,
      );
    });
  }

  /**
   * Under the parent lease: is the item there, and if so make sure the scope owns it (recovery's
   * adoption of a write whose run succeeded). Returns whether it was present.
   */
  async adopt(item: Item, waiting: WaitPolicy): Promise<boolean> {
    const ctx = this.context(item);
    return this.withParent(item, waiting, async (lease) => {
      const own = await this.#ownership(item, lease, ctx);
      const present = (await item.op.inspect(ctx, item.params)).present;
      if (present && own) {
        const { changes } = decideClaim(own, true, ownerOf(this.#run));
        await lease?.changeOwners(changes, { locator: locatorOf(item) });
      }
      return present;
    });
  }

  /** The scope joined an item already on the provider: the ledger records how it holds it. */
  async #joined(item: Item, holding: Holding): Promise<WriteOutcome> {
    const existing = this.#session.ledgerEntry(item.line, item.key);
    if (!existing) {
      const record = recordOf(item, this.#run.id);
      this.#session.addLedger({ ...record, holding, createdAt: this.#deps.clock.now() });
      await this.#session.save();
    }
    return holding === "created" ? "already" : holding;
  }

  /**
   * A provider write: the intent is durable before it is sent (and before the scope becomes an
   * owner, so a crash in between is resolved by the intent), the fencing token is checked right
   * before it, and the ledger and ownership record it after.
   */
  async #send(
    item: Item,
    action: WriteAction,
    lease: Lease | null,
    send: () => Promise<void>,
    ownerChanges: OwnerChange[] | undefined,
  ): Promise<WriteOutcome> {
    const record = recordOf(item, this.#run.id);
    const where = { line: item.line, key: item.key, action, runId: this.#run.id };
    const intent = { action, ...record, at: this.#deps.clock.now() };
    this.#session.addIntent(intent);
    await this.#session.save();
    await this.#deps.faults?.("after-intent", where);
    if (action === "create" && ownerChanges)
      await lease?.changeOwners(ownerChanges, { locator: locatorOf(item) });
    // Fencing: both leases must still be ours immediately before the provider write.
    this.#scopeLease.assertHeld();
    await lease?.check();
    await send();
    await this.#deps.faults?.("after-write", where);
    if (action === "remove" && ownerChanges) await lease?.changeOwners(ownerChanges);
    this.#session.dropIntent(intent);
    if (action === "create")
      this.#session.addLedger({ ...record, holding: "created", createdAt: this.#deps.clock.now() });
    else this.#session.dropLedger(item.line, item.key);
    await this.#session.save();
    return "written";
  }

  /**
   * The item's ownership as the parent lock holds it, or null where ownership does not apply (no
   * parent lease; the test-only control switch). The first holder after an upgrade rebuilds it
   * from every receipt's ledger before anything is decided from it.
   */
  async #ownership(item: Item, lease: Lease | null, ctx: OpContext): Promise<ItemOwnership | null> {
    if (lease === null || !this.#deps.ownership) return null;
    const wanted = [{ op: item.opName, key: item.key }];
    let view = await lease.owners(wanted);
    if (!view.rebuilt) {
      await lease.changeOwners(await this.#ledgerOwners(item.parent as string), { rebuilt: true });
      view = await lease.owners(wanted);
    }
    if (!view.listedOps.includes(item.opName)) {
      // The first look at this list: what is on it now and owned by no scope was there before any
      // scope claimed it (foreign). Later additions by nobody we know are orphans, not foreign.
      const present = await item.op.list(ctx, item.params);
      const known = await lease.owners(present.map((key) => ({ op: item.opName, key })));
      const foreign: OwnerChange[] = known.items
        .filter((i) => i.owners.length === 0 && !i.foreign)
        .map(({ op, key }) => ({ op, key, action: "foreign" }));
      await lease.changeOwners(foreign, { locator: locatorOf(item) });
      view = await lease.owners(wanted);
    }
    return view.items[0] ?? null;
  }

  /** Every ledger entry on `parent`, in every receipt, as an owner (the upgrade's rebuild). */
  async #ledgerOwners(parent: string): Promise<OwnerChange[]> {
    const changes: OwnerChange[] = [];
    for (const summary of await this.#deps.store.listScopes()) {
      if (!mayName(summary.parents, parent)) continue;
      // The id is what ownership keys on; the name is only for display.
      const address = {
        repository: repositoryRefById(summary.repositoryId, []),
        environment: summary.environment,
        scope: summary.scope,
      };
      const { receipt } = await this.#deps.store.read(address);
      for (const entry of receipt.ledger) {
        if (entry.parent !== parent) continue;
        changes.push({ op: entry.op, key: entry.key, action: "add", owner: ownerOf(address) });
      }
    }
    return changes;
  }
}
