/**
 * The one place provider writes happen (docs/design.md, "Run algorithm"). A run's changes on one
 * shared object are one group, written in one critical section: intents for all of them durable
 * first (before the lease, so nothing but the lock object's own calls sit inside it), then under
 * the parent lease one read, every item's ownership in one call, the decisions, one ownership
 * change, the fencing check and one provider write carrying every change, then the ownership
 * the removals give up. The ledger records the outcome after the lease, saved with the run's next
 * receipt save. Ownership lives in the parent's own lock object and is changed only with that
 * lease's token (docs/design.md, "Ownership of shared entries").
 */
import { SponsonError } from "../../shared/errors";
import type { ItemOwnership, Locator, OwnerChange } from "../../shared/schemas/ownership";
import { repositoryRefById } from "../../shared/schemas/repository";
import { Lease } from "../locks/lease";
import { mayName } from "../receipts/parent-tags";
import { type EngineDeps, type FaultPoint, SimulatedCrash } from "./deps";
import { fencedFetch } from "./fenced-fetch";
import { type Item, recordOf } from "./item";
import type { Inspection, OpContext } from "./op-spec";
import { decideClaim, decideRelease, ownerOf } from "./ownership";
import type { ProviderContexts } from "./provider-context";
import type { ReceiptSession } from "./receipt-session";
import type { Run } from "./run";

export type WriteAction = "create" | "remove";

/** One item a run wants present (create) or absent (remove). */
export interface Change {
  item: Item;
  action: WriteAction;
}

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

/** What one change comes to under the lease, decided before anything is written. */
interface Decided {
  change: Change;
  outcome: WriteOutcome;
  /** Sent to the provider (in the group's one write). */
  write: boolean;
  /** Ownership changed before the write (claims, joins, leaves) and after it (a removal's). */
  ownersBefore: OwnerChange[];
  ownersAfter: OwnerChange[];
  /** The ledger's holding for a create that joined or wrote. */
  holding?: "created" | "shared" | "foreign";
}

/** The run's changes on one object (same parent, op kind and connection), in order. */
export function groupKeyOf(item: Item): string {
  if (item.parent === null) return `\0${item.line}\0${item.key}`;
  return [item.parent, item.op.batch?.kind ?? "", item.connection].join("\0");
}

export function groupChanges(changes: readonly Change[]): Change[][] {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    const key = groupKeyOf(change.item);
    const group = groups.get(key);
    if (group) group.push(change);
    else groups.set(key, [change]);
  }
  return [...groups.values()];
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

  /**
   * Whether each item is on the provider now, read without a lease: one read per object for ops
   * with the many-items form, one inspection per item otherwise. A failed read rejects its items.
   */
  peek(items: readonly Item[]): Promise<PromiseSettledResult<boolean>[]> {
    const states = new Map<string, Promise<unknown>>();
    return Promise.allSettled(
      items.map(async (item) => {
        const batch = item.op.batch;
        if (!batch || item.parent === null)
          return (await item.op.inspect(this.context(item), item.params)).present;
        const key = groupKeyOf(item);
        let state = states.get(key);
        if (!state) {
          state = batch.read(this.context(item), item.params);
          states.set(key, state);
        }
        return keysOf(item, await state).includes(item.key);
      }),
    );
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

  /** Makes one item present (create) or absent (remove) for this scope: a group of one. */
  async write(item: Item, action: WriteAction, waiting: WaitPolicy): Promise<WriteOutcome> {
    const [outcome] = await this.writeGroup([{ item, action }], waiting);
    return outcome as WriteOutcome;
  }

  /**
   * Makes every change of one group (same object: `groupChanges`) true in one critical section.
   * Throws when the group could not be written; then every change's intent stays, for the run's
   * rollback or a later recovery to resolve.
   */
  async writeGroup(changes: readonly Change[], waiting: WaitPolicy): Promise<WriteOutcome[]> {
    const first = changes[0]?.item;
    if (!first) return [];
    const intents = changes.map(({ item, action }) => ({
      action,
      ...recordOf(item, this.#run.id),
      at: this.#deps.clock.now(),
    }));
    for (const intent of intents) this.#session.addIntent(intent);
    await this.#session.save();
    // Until ownership or the provider is touched, a failure (e.g. the parent lock is held) leaves
    // nothing for the intents to resolve.
    let touched = false;

    const base = this.context(first);
    const decided = await this.withParent(first, waiting, async (lease): Promise<Decided[]> => {
      const ctx = { ...base, fetch: fencedFetch(base.fetch, [this.#scopeLease, lease]) };
      // The read made before the lease may be stale: decide from what is there now.
      const batch = first.op.batch && first.parent !== null ? first.op.batch : null;
      const state = batch ? await batch.read(ctx, first.params) : null;
      const seen: Inspection[] = [];
      for (const { item } of changes) {
        // Each op sees its own list in the object read once.
        seen.push(
          state !== null
            ? { present: keysOf(item, state).includes(item.key) }
            : await item.op.inspect(ctx, item.params),
        );
      }
      const owns = await this.#ownership(
        changes.map((c) => c.item),
        lease,
        ctx,
        state,
      );
      const me = ownerOf(this.#run);
      const decisions = changes.map((change, i) =>
        decide(change, seen[i] as Inspection, owns?.[i] ?? null, me),
      );
      const writes = decisions.filter((d) => d.write);
      for (const { change } of writes) await this.#fault("after-intent", change, changes);
      touched = true;
      const before = decisions.flatMap((d) => d.ownersBefore);
      if (before.length > 0) await lease?.changeOwners(before);
      if (writes.length > 0) {
        // Fencing: both leases must still be ours immediately before the provider write.
        this.#scopeLease.assertHeld();
        await lease?.check();
        if (batch) {
          await batch.write(ctx, first.params, state, (s) =>
            writes.reduce(
              (acc, { change }) => editOf(change.item)(acc, change.item.params, change.action),
              s,
            ),
          );
        } else {
          for (const { change } of writes) {
            const i = changes.indexOf(change);
            const send = change.action === "create" ? change.item.op.create : change.item.op.remove;
            await send(ctx, change.item.params, seen[i] as Inspection);
          }
        }
        for (const { change } of writes) await this.#fault("after-write", change, changes);
      }
      const after = decisions.flatMap((d) => d.ownersAfter);
      if (after.length > 0) await lease?.changeOwners(after);
      return decisions;
    }).catch((err: unknown) => {
      if (!touched && !(err instanceof SimulatedCrash))
        for (const intent of intents) this.#session.dropIntent(intent);
      throw err;
    });

    // After the lease: the ledger says what happened; the run's next receipt save keeps it.
    for (const [i, d] of decided.entries()) {
      this.#session.dropIntent(intents[i] as (typeof intents)[number]);
      this.#record(d);
    }
    return decided.map((d) => d.outcome);
  }

  /**
   * Under the parent lease: is the item there, and if so make sure the scope owns it (recovery's
   * adoption of a write whose run succeeded). Returns whether it was present.
   */
  async adopt(item: Item, waiting: WaitPolicy): Promise<boolean> {
    const ctx = this.context(item);
    return this.withParent(item, waiting, async (lease) => {
      const present = (await item.op.inspect(ctx, item.params)).present;
      const [own] = (await this.#ownership([item], lease, ctx, null)) ?? [];
      if (present && own) {
        const { changes } = decideClaim(own, true, ownerOf(this.#run));
        await lease?.changeOwners(changes);
      }
      return present;
    });
  }

  #record({ change, outcome, holding }: Decided): void {
    const { item, action } = change;
    if (action === "remove") {
      this.#session.dropLedger(item.line, item.key);
      return;
    }
    if (!holding) return;
    // A scope that joined an item it already holds keeps its entry (and the run that made it).
    if (holding !== "created" || outcome !== "written") {
      if (this.#session.ledgerEntry(item.line, item.key)) return;
    }
    const record = recordOf(item, this.#run.id);
    this.#session.addLedger({ ...record, holding, createdAt: this.#deps.clock.now() });
  }

  async #fault(point: FaultPoint, { item, action }: Change, group: readonly Change[]) {
    if (!this.#deps.faults) return;
    await this.#deps.faults(point, {
      line: item.line,
      key: item.key,
      action,
      runId: this.#run.id,
      group: group.map((c) => ({ line: c.item.line, key: c.item.key, action: c.action })),
    });
  }

  /**
   * Each item's ownership as the parent lock holds it, or null where ownership does not apply (no
   * parent lease; the test-only control switch). The first holder after an upgrade rebuilds it from
   * every receipt's ledger before anything is decided from it; the first look at an op's list marks
   * what is on it and owned by no scope as foreign (it was there before any scope claimed it).
   */
  async #ownership(
    items: readonly Item[],
    lease: Lease | null,
    ctx: OpContext,
    state: unknown,
  ): Promise<ItemOwnership[] | null> {
    if (lease === null || !this.#deps.ownership) return null;
    const wanted = items.map((i) => ({ op: i.opName, key: i.key }));
    let view = await lease.owners(wanted);
    if (!view.rebuilt) {
      await lease.changeOwners(await this.#ledgerOwners((items[0] as Item).parent as string), {
        rebuilt: true,
      });
      view = await lease.owners(wanted);
    }
    const firstLooks = items.filter(
      (item, i) =>
        !view.listedOps.includes(item.opName) && items.findIndex((o) => o.opName === item.opName) === i,
    );
    for (const item of firstLooks) {
      // Later additions by nobody we know are orphans, not foreign.
      const present = state !== null ? keysOf(item, state) : await item.op.list(ctx, item.params);
      const known = await lease.owners(present.map((key) => ({ op: item.opName, key })));
      const foreign: OwnerChange[] = known.items
        .filter((i) => i.owners.length === 0 && !i.foreign)
        .map(({ op, key }) => ({ op, key, action: "foreign" }));
      await lease.changeOwners(foreign, { locator: locatorOf(item) });
    }
    if (firstLooks.length > 0) view = await lease.owners(wanted);
    return wanted.map(
      ({ op, key }) =>
        view.items.find((v) => v.op === op && v.key === key) ?? { op, key, owners: [], foreign: false },
    );
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

/** Items of one group share a batch kind, but each op reads and edits its own list in the state. */
function keysOf(item: Item, state: unknown): string[] {
  if (!item.op.batch) throw new SponsonError("INTERNAL", `${item.opName} has no many-items form`);
  return item.op.batch.keys(state, item.params);
}

function editOf(item: Item) {
  if (!item.op.batch) throw new SponsonError("INTERNAL", `${item.opName} has no many-items form`);
  return item.op.batch.edit;
}

/**
 * What one change comes to, from the item's presence and ownership read under the lease. Without
 * ownership (no parent lease) presence alone decides.
 */
function decide(change: Change, seen: Inspection, own: ItemOwnership | null, me: string): Decided {
  const none = { ownersBefore: [], ownersAfter: [] };
  if (change.action === "create") {
    const claim = own ? decideClaim(own, seen.present, me) : null;
    if (claim?.kind === "join") {
      const outcome = claim.holding === "created" ? "already" : claim.holding;
      return {
        change,
        outcome,
        write: false,
        ownersBefore: claim.changes,
        ownersAfter: [],
        holding: claim.holding,
      };
    }
    if (seen.present) return { change, outcome: "already", write: false, ...none };
    // The scope becomes an owner before it creates the item, so a crash in between is resolved by
    // the intent and never leaves an item nobody owns.
    return {
      change,
      outcome: "written",
      write: true,
      ownersBefore: claim?.changes ?? [],
      ownersAfter: [],
      holding: "created",
    };
  }
  const release = own ? decideRelease(own, me) : null;
  if (release?.kind === "leave") {
    return { change, outcome: "left", write: false, ownersBefore: release.changes, ownersAfter: [] };
  }
  if (!seen.present) {
    return {
      change,
      outcome: "already",
      write: false,
      ownersBefore: release?.changes ?? [],
      ownersAfter: [],
    };
  }
  // The last owner's removal: the ownership goes once the item is off the provider.
  return { change, outcome: "written", write: true, ownersBefore: [], ownersAfter: release?.changes ?? [] };
}
