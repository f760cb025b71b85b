/**
 * The one place provider writes happen (docs/design.md, "Run algorithm"). A run's changes on one
 * shared object are one group, written in one critical section: intents for all of them durable
 * in the receipt first (before the lease, so nothing but the lock object's own calls sit inside it), then
 * the group write (group-write.ts: its parent lease, its fence, its critical section, or another
 * run's write carrying them). The ledger records the outcome after the lease (ledger-record.ts),
 * saved with the run's next receipt save. Ownership lives in the parent's own lock object and is
 * changed only with that lease's token (lease/owner-bookkeeping.ts; docs/design.md, "Ownership of
 * shared entries").
 */
import type { Intent } from "../../../shared/schemas/receipt";
import type { WaitPolicy, WriterParts, Written } from "../contracts/writer-parts";
import { ownershipOf } from "../lease/owner-bookkeeping";
import { assertNotInDoubt, withParent } from "../lease/parent-lease";
import { groupKeyOf, type Item, recordOf, refOf, sameItem } from "../plan/item";
import {
  type Change,
  type Decided,
  keysOf,
  type WriteAction,
  type WriteOutcome,
} from "../rules/group-decisions";
import { decideClaim, ownerOf } from "../rules/ownership";
import { SimulatedCrash } from "../simulated-crash";
import { Fence } from "./fence";
import { GroupWrite } from "./group-write";
import { recordOutcome } from "./ledger-record";
import { readBeforeLease } from "./recent-writes-section";
import { contextOf } from "./writer-hooks";

export type { WaitPolicy, Written } from "../contracts/writer-parts";
export { type Change, groupChanges, type WriteAction, type WriteOutcome } from "../rules/group-decisions";

export class ItemWriter {
  readonly #w: WriterParts;
  /** WriterParts.inDoubt: added to only here, when a group write's outcome is unknown. */
  readonly #inDoubt: Set<string>;

  /**
   * `inDoubt`: the run's, when it writes through several writers (an adoption's scopes, all
   * under one holder); else this writer's own.
   */
  /** WriterParts.ahead: the run's creates not written yet, set by `expect`. */
  readonly #ahead = new Set<Change>();

  constructor({ inDoubt, ...parts }: Omit<WriterParts, "inDoubt" | "ahead"> & { inDoubt?: Set<string> }) {
    this.#inDoubt = inDoubt ?? new Set();
    this.#w = { ...parts, inDoubt: this.#inDoubt, ahead: this.#ahead };
  }

  /**
   * The creates the run's groups are about to write, each group's leaving as it is written (or
   * all, `expect([])`, once the run stops writing them): a group's share of a list counts what its
   * run's later groups add there (owner-bookkeeping.ts `runListOf`).
   */
  expect(changes: readonly Change[]): void {
    this.#ahead.clear();
    for (const change of changes) if (change.action === "create") this.#ahead.add(change);
  }

  context(item: Item) {
    return contextOf(this.#w, item);
  }

  /**
   * Whether each item is on the provider now, read without a lease: one read per object for ops
   * with the many-items form, one inspection per item otherwise. A failed read rejects its items.
   */
  peek(items: readonly Item[]): Promise<PromiseSettledResult<boolean>[]> {
    const w = this.#w;
    const states = new Map<string, Promise<unknown>>();
    return Promise.allSettled(
      items.map(async (item) => {
        const batch = item.op.batch;
        if (!batch || item.parent === null)
          return (await item.op.inspect(this.context(item), item.params)).present;
        const key = groupKeyOf(item);
        let state = states.get(key);
        if (!state) {
          // Merged with the lock's recent writes, as the read under the lease is: a write of
          // ours the provider does not show yet is no drift (docs/design.md, "Providers that forget a write").
          state = readBeforeLease(w.deps, {
            batch,
            ctx: this.context(item),
            params: item.params,
            parent: item.parent,
          });
          states.set(key, state);
        }
        return keysOf(item, await state).includes(item.key);
      }),
    );
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
    const w = this.#w;
    const first = changes[0]?.item;
    if (!first) return [];
    assertNotInDoubt(w, first);
    const { intents, replaced } = await this.#addIntents(changes);
    const group = new GroupWrite(w, changes);
    let decided: Decided[];
    try {
      decided = await group.write(waiting);
    } catch (err) {
      // Until ownership or the provider is touched, a failure (e.g. the parent lock is held)
      // leaves nothing for the intents to resolve. Only the intents this group added go: a create
      // intent a removal here was to resolve stays, and an intent an addition replaced comes back
      // (docs/design.md, "Intent recovery": never dropped while its outcome is unknown).
      if (!group.touched && !(err instanceof SimulatedCrash)) {
        for (const intent of intents) w.session.dropIntent(intent);
        for (const intent of replaced) w.session.addIntent(intent);
      }
      if (!(err instanceof SimulatedCrash)) await markRefused(w, group.claimsLeft);
      throw err;
    } finally {
      if (group.inDoubt) this.#inDoubt.add(first.parent ?? first.key);
      for (const change of changes) this.#ahead.delete(change);
    }
    // After the lease: the ledger says what happened; the run's next receipt save keeps it.
    // A remove resolves the run's create intent of the item too (rollback's case): only now.
    for (const d of decided) {
      w.session.resolveIntents(w.run.id, refOf(d.change.item));
      recordOutcome(w, d);
    }
    return decided.map(({ outcome, writtenBy }) => ({ outcome, ...(writtenBy ? { writtenBy } : {}) }));
  }

  /**
   * The group's intents, durable in the receipt before the parent lease and the provider write
   * (docs/design.md, "Writing one object's items"): the receipt is the one home of intents. Also
   * answers what an addition replaces (the run's own intent of the same action and item: the one
   * its recovery resolves), which is not this group's to drop.
   */
  async #addIntents(changes: readonly Change[]): Promise<{ intents: Intent[]; replaced: Intent[] }> {
    const w = this.#w;
    const intents = changes.map(({ item, action }) => ({
      action,
      ...recordOf(item, w.run.id),
      at: w.deps.clock.now(),
      // This run claims before it writes: the rebuild reads ownership from the claim, not from here.
      claims: true as const,
      // A leave that resolves a refused create's claim is as much never the scope's to remove.
      ...(changes.some((c) => c.item === item && c.leaveOnly) ? { refused: true as const } : {}),
    }));
    const replaced = w.session.receipt.intents.filter((o) =>
      intents.some((i) => o.runId === i.runId && o.action === i.action && sameItem(o, i)),
    );
    for (const intent of intents) w.session.addIntent(intent);
    await w.session.save();
    return { intents, replaced };
  }

  /**
   * Gives up the scope's ownership of an item without ever removing it from the provider (a
   * refused create's claim, docs/design.md, "Intent recovery"): a group of one, never combined.
   */
  async leave(item: Item, waiting: WaitPolicy): Promise<void> {
    await this.writeGroup([{ item, action: "remove", leaveOnly: true }], waiting);
  }

  /**
   * Under the parent lease: is the item there, and if so make sure the scope owns it (recovery's
   * adoption of a write whose run succeeded). Returns whether it was present.
   */
  async adopt(item: Item, waiting: WaitPolicy): Promise<boolean> {
    const w = this.#w;
    const ctx = this.context(item);
    return withParent(w, { first: item, waiting, items: [item] }, async (lease) => {
      // No provider write here: the fence only hands the first read the grant's view.
      const fence = new Fence({ scope: w.scopeLease, parent: lease, checkAfter: false, what: item.key });
      const present = (await item.op.inspect(ctx, item.params)).present;
      const [own] = (await ownershipOf(w, { items: [item], lease, fence, ctx, state: null })) ?? [];
      if (present && own) {
        const { changes } = decideClaim(own, true, ownerOf(w.run));
        // Adopting is an ownership change: only while the scope is still ours (a round trip).
        if (changes.length > 0) await w.scopeLease.check();
        await lease?.changeOwners(changes);
      }
      return present;
    });
  }
}

/**
 * A refused create whose claim the lock still holds (GroupWrite.claimsLeft) is no write of this
 * run's: its intent says so, durable before the error leaves, so the run's rollback and any later
 * recovery only leave the item, never remove another writer's entry (docs/design.md, "Intent
 * recovery"). A save that fails leaves the mark in the run's copy, for its later saves.
 */
async function markRefused(w: WriterParts, left: readonly Change[]): Promise<void> {
  if (left.length === 0) return;
  for (const { item } of left) w.session.markRefused(w.run.id, refOf(item));
  try {
    await w.session.save();
  } catch (err) {
    w.run.warn(
      `the refused creates ${left.map((c) => c.item.key).join(", ")} are marked only in this run's copy of the receipt: ${w.run.errorOf(err).message}`,
    );
  }
}
