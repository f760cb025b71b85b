/**
 * The critical section of a group write, under the parent lease (docs/design.md, "Run algorithm"):
 * one read, every item's ownership, the decisions in order, one ownership change, the fencing
 * check, one provider write carrying every change, then the ownership the removals give up. With
 * `takeQueue` the waiters' changes are taken and written in the same write (write combining), and
 * each waiter is told what became of its own.
 */
import { SponsonError } from "../../../shared/errors";
import type { CombineReport } from "../../../shared/schemas/combine";
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import type { Inspection } from "../../adapters/op-spec";
import { keptChanging, MAX_DECIDE_ATTEMPTS, StaleState } from "../../adapters/stale-state";
import type { ParentLock } from "../../locks/parent-lock";
import { admitQueued, type Queued } from "../combining/combining";
import { gone, goneBack, goneWaiters, stillRunning } from "../combining/waiter-scopes";
import { SimulatedCrash } from "../deps";
import type { Item } from "../plan/item";
import {
  type Change,
  type Decided,
  decideInOrder,
  editAll,
  keysOf,
  undoChanges,
} from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";
import { fencedFetch, leaseDeadline } from "./fenced-fetch";
import { ownershipOf } from "./owner-bookkeeping";
import { readUnderLease, rememberWritten } from "./recent-writes-section";
import { checkedAfterWrite, type FencedLeases, fencedWrite } from "./write-fence";
import { contextOf, fault, type Section, type WriterParts } from "./writer-parts";

export async function criticalSection(
  w: WriterParts,
  first: Item,
  lease: ParentLock | null,
  own: readonly Change[],
  takeQueue: boolean,
  section: Section,
): Promise<Decided[]> {
  if (lease && own[0]) await fault(w, "after-acquire", own[0], own);
  const waiters = takeQueue && lease ? await lease.takeQueued() : [];
  const alive = await Promise.all(waiters.map((q) => stillRunning(w, q.changes[0])));
  const admitted = waiters.map((q, i) =>
    alive[i]
      ? { waiter: q.waiter, ...admitQueued(w.deps, w.run, first, q) }
      : { waiter: q.waiter, accepted: [], returned: q.changes.map((c) => ({ id: c.id, error: gone(c) })) },
  );
  const queued: Queued[] = admitted.flatMap((a) => a.accepted);
  // Waiters found gone right before the write: their changes go back, like those gone at the take.
  const goneNow = new Set<string>();
  let decisions: Decided[];
  try {
    // With waiters taken, a report follows the write whatever becomes of their changes.
    decisions = await decideAndWrite(w, first, lease, own, queued, section, goneNow, waiters.length > 0);
  } catch (err) {
    if (waiters.length === 0 || !lease || err instanceof SimulatedCrash) throw err;
    // Their changes go back: each waiter writes its own as it would without combining.
    const back: CombineReport[] = waiters.map((q) => ({
      waiter: q.waiter,
      applied: [],
      returned: q.changes.map((c) => ({ id: c.id, error: w.run.errorOf(err) })),
    }));
    // If even this report fails (the lease is lost), the waiters are untaken when the lease ends.
    await lease.reportCombined(back, []).catch(() => {});
    // A provider refusing one queued item must not fail this run: write its own alone.
    if (queued.length > 0 && refusedByProvider(err))
      return criticalSection(w, first, lease, own, false, section);
    throw err;
  }
  const after = decisions.flatMap((d) => d.ownersAfter);
  // After a write, the report or the leaves are the parent's check after it (write-fence.ts).
  const wrote = lease !== null && !w.deps.unfenced && decisions.some((d) => d.write);
  const follow = <T>(call: () => Promise<T>, parentFenced = true): Promise<T> =>
    wrote ? checkedAfterWrite(fencing(w, lease), first.parent ?? first.key, call, parentFenced) : call();
  // Leaves are ownership changes too: only while this run still holds its scope (a round trip).
  if (after.length > 0) await follow(() => w.scopeLease.check(), false);
  if (waiters.length > 0 && lease) {
    const reports: CombineReport[] = admitted.map(({ waiter, returned, accepted }) =>
      goneNow.has(waiter)
        ? { waiter, applied: [], returned: [...returned, ...accepted.map((q) => goneBack(q))] }
        : {
            waiter,
            applied: decisions
              .filter((d): d is Decided & Queued => "waiter" in d && d.waiter === waiter)
              .map((d) => ({ id: d.id, outcome: d.outcome })),
            returned,
          },
    );
    await follow(() => lease.reportCombined(reports, after));
  } else if (after.length > 0 && lease) {
    await follow(() => lease.changeOwners(after));
  }
  if (lease && own[0]) await fault(w, "after-report", own[0], own);
  return decisions.slice(0, own.length);
}

/**
 * Read, decide, write; a write its precondition refused (StaleState: nothing written) withdraws
 * the claims made for it and is read and decided again, a bounded number of times.
 */
async function decideAndWrite(
  w: WriterParts,
  first: Item,
  lease: ParentLock | null,
  own: readonly Change[],
  queued: readonly Queued[],
  section: Section,
  goneNow: Set<string>,
  reports: boolean,
): Promise<Decided[]> {
  for (let attempt = 1; ; attempt += 1) {
    const tried = await attemptWrite(w, first, lease, own, queued, section, goneNow, attempt, reports);
    if (!(tried instanceof StaleState)) return tried.decisions;
    if (attempt >= MAX_DECIDE_ATTEMPTS) throw keptChanging(first.parent, attempt, tried.detail);
    const undo = tried.owns
      ? undoChanges(
          tried.owns,
          tried.decisions.flatMap((d) => d.ownersBefore),
        )
      : [];
    if (undo.length > 0) await lease?.changeOwners(undo);
  }
}

async function attemptWrite(
  w: WriterParts,
  first: Item,
  lease: ParentLock | null,
  own: readonly Change[],
  queued: readonly Queued[],
  section: Section,
  goneNow: Set<string>,
  attempt: number,
  reports: boolean,
): Promise<{ decisions: Decided[] } | (StaleState & { decisions: Decided[]; owns: ItemOwnership[] | null })> {
  const base = contextOf(w, first);
  const ctx = {
    ...base,
    fetch: fencedFetch(base.fetch, [w.scopeLease, lease], w.deps.clock),
    deadline: leaseDeadline([w.scopeLease, lease]),
  };
  const me = ownerOf(w.run);
  const parts = [...own.map((change) => ({ change, owner: me })), ...queued];
  const items = parts.map((p) => p.change.item);
  // The read made before the lease may be stale: decide from what is there now.
  const batch = first.op.batch && first.parent !== null ? first.op.batch : null;
  // A provider that may not show a recent write yet gets the lock's memory of it merged in.
  const state = batch ? await readUnderLease(w.deps, batch, ctx, first.params, lease) : null;
  const seen: Inspection[] = [];
  for (const item of items) {
    // Each op sees its own list in the object read once.
    seen.push(
      state !== null
        ? { present: keysOf(item, state).includes(item.key) }
        : await item.op.inspect(ctx, item.params),
    );
  }
  const owns = await ownershipOf(w, items, lease, ctx, state);
  // Decided in order, each against the item as the ones before leave it; decided again without
  // the waiters found gone right before the write.
  const decideFor = (kept: readonly boolean[]) =>
    decideInOrder(
      parts.filter((_, i) => kept[i]),
      seen.filter((_, i) => kept[i]).map((s) => s.present),
      owns?.filter((_, i) => kept[i]) ?? null,
    );
  let decisions = decideFor(parts.map(() => true));
  const ownWrites = decisions.filter((d) => d.write && d.owner === me && !("waiter" in d));
  if (attempt === 1) for (const { change } of ownWrites) await fault(w, "after-intent", change, own);
  section.touched = true;
  // Claims, joins and the write itself only while this run holds its scope, asked of the scope's
  // lock object (a round trip): a force-released or recovered scope's run has a deadline that has
  // not passed, and would record an owner no receipt names (docs/design.md, "Ownership"). Each
  // waiter's run must still hold its own scope too: the check at the take may be long past.
  const [, goneList] = await Promise.all([
    decisions.some((d) => d.write || d.ownersBefore.length > 0) ? w.scopeLease.check() : null,
    goneWaiters(w, queued),
  ]);
  if (goneList.length > 0) {
    for (const waiter of goneList) goneNow.add(waiter);
    decisions = decideFor(parts.map((p) => !("waiter" in p) || !goneNow.has(p.waiter as string)));
  }
  const writes = decisions.filter((d) => d.write);
  const before = decisions.flatMap((d) => d.ownersBefore);
  if (before.length > 0) await lease?.changeOwners(before);
  if (ownWrites[0]) await fault(w, "after-owners", ownWrites[0].change, own);
  if (writes.length > 0) {
    // Fencing: both leases are checked right before the write and again right after it; the
    // claims just made renewed the parent lease at the object, which is its check before, and
    // the report or the leaves that follow the write are its check after.
    const leases = {
      ...fencing(w, lease),
      parentRenewed: before.length > 0,
      parentCheckedAfter: lease !== null && (reports || decisions.some((d) => d.ownersAfter.length > 0)),
    };
    const stale = await fencedWrite(leases, first.parent ?? first.key, async () => {
      if (batch) {
        await batch.write(ctx, first.params, state, editAll(writes));
        await rememberWritten(w.deps, batch, lease, writes);
        return;
      }
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
    }).then(
      () => null,
      (err: unknown) => {
        if (err instanceof StaleState) return Object.assign(err, { decisions, owns });
        throw err;
      },
    );
    if (stale) return stale;
    for (const { change } of ownWrites) await fault(w, "after-write", change, own);
  }
  return { decisions };
}

/** The leases a group's write is fenced by (write-fence.ts). */
function fencing(w: WriterParts, lease: ParentLock | null): FencedLeases {
  return { scope: w.scopeLease, parent: lease, checkAfter: !w.deps.unfenced, abandoned: w.abandoned };
}

/** A provider's refusal of the request (4xx): the write itself was wrong, not the provider. */
function refusedByProvider(err: unknown): boolean {
  if (!(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") return false;
  const status = (err.detail as { status?: unknown } | undefined)?.status;
  return typeof status === "number" && status >= 400 && status < 500;
}
