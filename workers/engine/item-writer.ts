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
import type { CombineReport, QueuedChange } from "../../shared/schemas/combine";
import {
  type ItemOwnership,
  type Locator,
  type OwnerChange,
  scopeOfOwner,
} from "../../shared/schemas/ownership";
import { repositoryRefById } from "../../shared/schemas/repository";
import { Lease } from "../locks/lease";
import { mayName } from "../receipts/parent-tags";
import { admitQueued, changeId, decidedFromAnswer, type Queued, queuedChangeOf } from "./combining";
import { type EngineDeps, type FaultPoint, SimulatedCrash } from "./deps";
import { fencedFetch } from "./fenced-fetch";
import {
  type Change,
  type Decided,
  decideInOrder,
  editAll,
  groupKeyOf,
  keysOf,
  type WriteAction,
  type WriteOutcome,
} from "./group-decisions";
import { type Item, recordOf } from "./item";
import type { Inspection, OpContext } from "./op-spec";
import { decideClaim, ownerOf } from "./ownership";
import type { ProviderContexts } from "./provider-context";
import type { ReceiptSession } from "./receipt-session";
import { errorInfo, type Run } from "./run";

export { type Change, groupChanges, type WriteAction, type WriteOutcome } from "./group-decisions";

/** Where the item's list lives on its object: what the sweep lists to find orphans. */
function locatorOf(item: Item): Locator {
  return { op: item.opName, connection: item.connection, params: item.params };
}

export interface WaitPolicy {
  wait: boolean;
  waitTimeoutMs: number;
}

/** What became of one change: its outcome, and the run whose write carried it when not this one. */
export interface Written {
  outcome: WriteOutcome;
  writtenBy?: string;
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
  async #withParent<T>(item: Item, waiting: WaitPolicy, fn: (lease: Lease | null) => Promise<T>): Promise<T> {
    if (item.parent === null || !this.#deps.parentLocks) return fn(null);
    const lease = await this.#acquire(item, waiting, (target, opts) =>
      Lease.acquire(target, this.#run.id, opts),
    );
    try {
      return await fn(lease);
    } finally {
      await lease.release();
    }
  }

  /** Makes one item present (create) or absent (remove) for this scope: a group of one. */
  async write(item: Item, action: WriteAction, waiting: WaitPolicy): Promise<WriteOutcome> {
    const [written] = await this.writeGroup([{ item, action }], waiting);
    return (written as Written).outcome;
  }

  /**
   * Makes every change of one group (same object: `groupChanges`) true in one critical section, or
   * has another run's write carry them (write combining). Throws when the group could not be
   * written; then every change's intent stays, for the run's rollback or a later recovery.
   */
  async writeGroup(changes: readonly Change[], waiting: WaitPolicy): Promise<Written[]> {
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
    const section = { touched: false };
    let decided: Decided[];
    try {
      decided = this.#combines(first)
        ? await this.#combined(first, changes, waiting, section)
        : await this.#withParent(first, waiting, (lease) =>
            this.#section(first, lease, changes, false, section),
          );
    } catch (err) {
      if (!section.touched && !(err instanceof SimulatedCrash))
        for (const intent of intents) this.#session.dropIntent(intent);
      throw err;
    }
    // After the lease: the ledger says what happened; the run's next receipt save keeps it.
    for (const [i, d] of decided.entries()) {
      this.#session.dropIntent(intents[i] as (typeof intents)[number]);
      this.#record(d);
    }
    return decided.map(({ outcome, writtenBy }) => ({ outcome, ...(writtenBy ? { writtenBy } : {}) }));
  }

  /** Write combining applies where ownership does: under a parent lease, unless turned off here. */
  #combines(item: Item): boolean {
    const deps = this.#deps;
    return (
      item.parent !== null &&
      deps.parentLocks &&
      deps.ownership &&
      (deps.combining?.(this.#run.environment) ?? false)
    );
  }

  /**
   * Queues with the changes as data: another run's write may carry them (then no lease is taken
   * here), or the lease comes and this run writes what is left, taking what others queued.
   */
  async #combined(
    first: Item,
    changes: readonly Change[],
    waiting: WaitPolicy,
    section: { touched: boolean },
  ) {
    const me = ownerOf(this.#run);
    const queued = changes.map((c) => queuedChangeOf(c, this.#run, me));
    const { lease, combined } = await this.#acquire(first, waiting, (target, opts) =>
      Lease.acquireOrCombine(target, this.#run.id, opts, queued),
    );
    const answered = new Map(combined?.outcomes.map((o) => [o.id, o.outcome]) ?? []);
    const rest = changes.filter((c) => !answered.has(changeId(c.item)));
    if (combined && answered.size > 0) {
      section.touched = true;
      this.#run.combinedBy(combined.by);
      const done = changes.filter((c) => answered.has(changeId(c.item)));
      for (const change of done) await this.#fault("after-answer", change, changes);
    }
    let own: Decided[] = [];
    if (lease) {
      try {
        own = await this.#section(first, lease, rest, true, section);
      } finally {
        await lease.release();
      }
    } else if (rest.length > 0) {
      throw new SponsonError("INTERNAL", `${first.parent}: neither a lease nor every change written`);
    }
    return changes.map((change) => {
      const outcome = answered.get(changeId(change.item));
      if (outcome && combined) return decidedFromAnswer({ change, owner: me }, outcome, combined.by);
      return own.find((d) => d.change === change) as Decided;
    });
  }

  /**
   * Under the parent lease: one read, every item's ownership, the decisions in order, one ownership
   * change, the fencing check, one write, the removals' ownership. With `takeQueue` the waiters'
   * changes are taken and written in the same write, and each waiter is told what became of its own.
   */
  async #section(
    first: Item,
    lease: Lease | null,
    own: readonly Change[],
    takeQueue: boolean,
    section: { touched: boolean },
  ): Promise<Decided[]> {
    const waiters = takeQueue && lease ? await lease.takeQueued() : [];
    const alive = await Promise.all(waiters.map((w) => this.#stillRunning(w.changes[0])));
    const admitted = waiters.map((w, i) =>
      alive[i]
        ? { waiter: w.waiter, ...admitQueued(this.#deps, first, w) }
        : { waiter: w.waiter, accepted: [], returned: w.changes.map((c) => ({ id: c.id, error: gone(c) })) },
    );
    const queued: Queued[] = admitted.flatMap((a) => a.accepted);
    let decisions: Decided[];
    try {
      decisions = await this.#decideAndWrite(first, lease, own, queued, section);
    } catch (err) {
      if (waiters.length === 0 || !lease || err instanceof SimulatedCrash) throw err;
      // Their changes go back: each waiter writes its own as it would without combining.
      const back: CombineReport[] = waiters.map((w) => ({
        waiter: w.waiter,
        applied: [],
        returned: w.changes.map((c) => ({ id: c.id, error: errorInfo(err) })),
      }));
      // If even this report fails (the lease is lost), the waiters are untaken when the lease ends.
      await lease.reportCombined(back, []).catch(() => {});
      // A provider refusing one queued item must not fail this run: write its own alone.
      if (queued.length > 0 && refusedByProvider(err))
        return this.#section(first, lease, own, false, section);
      throw err;
    }
    const after = decisions.flatMap((d) => d.ownersAfter);
    if (waiters.length > 0 && lease) {
      const reports: CombineReport[] = admitted.map(({ waiter, returned }) => ({
        waiter,
        applied: decisions
          .filter((d): d is Decided & Queued => "waiter" in d && d.waiter === waiter)
          .map((d) => ({ id: d.id, outcome: d.outcome })),
        returned,
      }));
      await lease.reportCombined(reports, after);
    } else if (after.length > 0) {
      await lease?.changeOwners(after);
    }
    return decisions.slice(0, own.length);
  }

  /**
   * A waiter's change is written only while its run still holds its scope lease: a run that died
   * while queued may have had its scope recovered already, and a change written after that would be
   * owned by a scope whose ledger never says so.
   */
  async #stillRunning(change: QueuedChange | undefined): Promise<boolean> {
    const scope = change ? scopeOfOwner(change.owner) : null;
    if (!change || !scope) return false;
    return this.#deps.locks.holdsScope(scope.repositoryId, scope.environment, scope.scope, change.runId);
  }

  async #decideAndWrite(
    first: Item,
    lease: Lease | null,
    own: readonly Change[],
    queued: readonly Queued[],
    section: { touched: boolean },
  ): Promise<Decided[]> {
    const base = this.context(first);
    const ctx = { ...base, fetch: fencedFetch(base.fetch, [this.#scopeLease, lease]) };
    const me = ownerOf(this.#run);
    const parts = [...own.map((change) => ({ change, owner: me })), ...queued];
    const items = parts.map((p) => p.change.item);
    // The read made before the lease may be stale: decide from what is there now.
    const batch = first.op.batch && first.parent !== null ? first.op.batch : null;
    const state = batch ? await batch.read(ctx, first.params) : null;
    const seen: Inspection[] = [];
    for (const item of items) {
      // Each op sees its own list in the object read once.
      seen.push(
        state !== null
          ? { present: keysOf(item, state).includes(item.key) }
          : await item.op.inspect(ctx, item.params),
      );
    }
    const owns = await this.#ownership(items, lease, ctx, state);
    const decisions = decideInOrder(
      parts,
      seen.map((s) => s.present),
      owns,
    );
    const writes = decisions.filter((d) => d.write);
    const ownWrites = writes.filter((d) => d.owner === me && !("waiter" in d));
    for (const { change } of ownWrites) await this.#fault("after-intent", change, own);
    section.touched = true;
    const before = decisions.flatMap((d) => d.ownersBefore);
    if (before.length > 0) await lease?.changeOwners(before);
    if (writes.length > 0) {
      // Fencing: both leases must still be ours immediately before the provider write.
      this.#scopeLease.assertHeld();
      await lease?.check();
      if (batch) {
        await batch.write(ctx, first.params, state, editAll(writes));
      } else {
        // One call per item, each told whether its item is there after the changes before it (a
        // queued run's claim may follow this run's removal of the same item).
        for (const { change, presentBefore } of writes) {
          const i = items.indexOf(change.item);
          const send = change.action === "create" ? change.item.op.create : change.item.op.remove;
          await send(ctx, change.item.params, {
            ...(seen[i] as Inspection),
            present: presentBefore ?? false,
          });
        }
      }
      for (const { change } of ownWrites) await this.#fault("after-write", change, own);
    }
    return decisions;
  }

  /** Takes `first`'s parent lease through `take`; a held lock is reported naming the parent. */
  async #acquire<T>(
    first: Item,
    waiting: WaitPolicy,
    take: (
      target: Awaited<ReturnType<EngineDeps["locks"]["parent"]>>,
      opts: Parameters<typeof Lease.acquire>[2],
    ) => Promise<T>,
  ): Promise<T> {
    // Never wait for a parent lock without the scope lease still ours.
    this.#scopeLease.assertHeld();
    const target = await this.#deps.locks.parent(first.parent as string);
    try {
      return await take(target, {
        ttlMs: this.#deps.ttlMs,
        wait: waiting.wait,
        waitTimeoutMs: waiting.waitTimeoutMs,
        clock: this.#deps.clock,
        onWarning: (m) => this.#run.warn(m),
      });
    } catch (err) {
      if (err instanceof SponsonError && err.code === "LOCK_HELD") {
        throw new SponsonError("LOCK_HELD", `${err.message} (parent ${first.parent})`, {
          ...err.detail,
          parent: first.parent,
        });
      }
      throw err;
    }
  }

  /**
   * Under the parent lease: is the item there, and if so make sure the scope owns it (recovery's
   * adoption of a write whose run succeeded). Returns whether it was present.
   */
  async adopt(item: Item, waiting: WaitPolicy): Promise<boolean> {
    const ctx = this.context(item);
    return this.#withParent(item, waiting, async (lease) => {
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

function gone(change: QueuedChange) {
  return errorInfo(
    new SponsonError(
      "LOCK_LOST",
      `run ${change.runId} no longer holds its scope lease: its change goes back`,
    ),
  );
}

/** A provider's refusal of the request (4xx): the write itself was wrong, not the provider. */
function refusedByProvider(err: unknown): boolean {
  if (!(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") return false;
  const status = (err.detail as { status?: unknown } | undefined)?.status;
  return typeof status === "number" && status >= 400 && status < 500;
}
