/**
 * The lock object's side of write combining (docs/design.md, "Write combining: the lock object's
 * side"): the changes queued waiters brought, taken by the holder, reported back and answered. The
 * lock object fences every call first (only the live lease's token may take or report); this
 * module keeps the waiters' slots (combine-queue.ts) and stored answers (combine-store.ts) in step.
 */
import { fail, ok, type Result } from "../shared/errors";
import type { AcquireRequest, ReportCombinedRequest } from "../shared/rpc/lease-lock";
import {
  type CombinedAnswer,
  type GrantOrCombined,
  MAX_COMBINE_REPORTS,
  type QueuedChange,
  type QueuedWaiter,
  type ReportCombinedBody,
  type TakenQueue,
} from "../shared/schemas/combine";
import type { LeaseGrant } from "../shared/schemas/lock";
import {
  type CombineSlot,
  coversAll,
  isOffered,
  isTaken,
  mergeOutcomes,
  newSlot,
  sameChanges,
} from "./combine-queue";
import { deleteAnswer, pruneAnswers, readAnswer, storeAnswer } from "./combine-store";
import type { CombineContext } from "./lease-core";
import type { LeaseRow } from "./lease-rules";
import { announce, arm, type Effect } from "./lock-effects";
import { applyOwnerChanges, saveLocator } from "./ownership-store";
import type { Waiter } from "./waiter-queue";

export class CombineWaiters {
  readonly #p: CombineContext;

  constructor(context: CombineContext) {
    this.#p = context;
  }

  /**
   * acquire for a run that brings `changes`. `acquireNow` is the lock's synchronous decision step:
   * when it returns, a busy waiter is in the queue, so its slot is attached before any other call
   * runs. A waiter re-joining after its answer was lost (an object restart) finds the stored answer.
   */
  acquireOrCombine(
    req: AcquireRequest,
    changes: QueuedChange[],
    acquireNow: (req: AcquireRequest) => Promise<Result<LeaseGrant>>,
  ): Promise<Result<GrantOrCombined>> {
    const { sql, queue } = this.#p;
    const now = Date.now();
    pruneAnswers(sql, now);
    const stored = readAnswer(sql, req.holder);
    if (stored?.complete && coversAll(changes, stored.answer.outcomes)) {
      deleteAnswer(sql, req.holder);
      // Still queued under a plain acquire of the same holder: that call is done with too.
      const queued = queue.find(req.holder);
      if (queued) this.#combined(queued, stored.answer);
      return Promise.resolve(ok({ grant: null, combined: stored.answer }));
    }
    // A waiter already queued with other changes (its call was lost, its group failed, and it
    // comes back with another group): what a holder took may still be written, so this call is
    // refused; never taken, those changes were nobody's to write, and these replace them.
    const before = queue.find(req.holder)?.combine;
    const other = before !== undefined && !sameChanges(before.changes, changes);
    if (other && (before.everTaken || before.settled)) return Promise.resolve(rejoinRefused(req.key));
    const pending = acquireNow({ ...req, changes: undefined });
    const waiter = queue.find(req.holder);
    if (!waiter) return pending.then((result) => this.#withCombined(req.holder, result, undefined));
    // A re-attaching waiter with the same changes keeps its slot (a holder may have taken them).
    const slot = waiter.combine ?? newSlot(changes);
    if (other) slot.changes = changes;
    waiter.combine = slot;
    // Part of it was written already (reported before a restart): the rest is its own to write.
    if (stored) slot.settled = true;
    return new Promise<Result<GrantOrCombined>>((resolve) => {
      slot.done.push((combined) => resolve(ok({ grant: null, combined })));
      void pending.then((result) => resolve(this.#withCombined(req.holder, result, slot)));
    });
  }

  /**
   * The queued changes of every waiter no live lease took yet, now taken by `token`: the holder
   * writes them with its own and reports. Changes it took and never reports are untaken when its
   * lease ends, and their waiters go on as without combining.
   */
  take(token: number): TakenQueue {
    return { waiters: this.#take(token, false) };
  }

  /**
   * The take a grant makes in its own step (parent-lock-role.ts withQueue): as `take`, and again
   * what this token took and has not reported, so a holder asking again (a retried acquire) hears
   * the same queue instead of losing what the lost answer named.
   */
  takeWithGrant(token: number): QueuedWaiter[] {
    return this.#take(token, true);
  }

  #take(token: number, again: boolean): QueuedWaiter[] {
    const waiters: QueuedWaiter[] = [];
    for (const w of this.#p.queue.all()) {
      if (waiters.length >= MAX_COMBINE_REPORTS) break;
      const slot = w.combine;
      if (!slot || !(isOffered(slot, token) || (again && !slot.settled && isTaken(slot, token)))) continue;
      slot.takenBy = token;
      slot.everTaken = true;
      waiters.push({ waiter: w.holder, changes: slot.changes });
    }
    if (waiters.length > 0) this.#p.commit([announce("waiters")]);
    return waiters;
  }

  /**
   * The holder's report of a combined write (already fenced). Ownership and every waiter's answer
   * are stored in one transaction, then the waiting calls are answered: a waiter with every change
   * written leaves the queue (`combined` in the history, never a grant); one with changes returned
   * keeps its place, untaken, and its later grant carries what was written for it.
   */
  report(req: ReportCombinedRequest, body: ReportCombinedBody, now: number): void {
    const { sql, store, queue } = this.#p;
    const { reports, ownerChanges = [], locator, repository } = body;
    const answered: Array<{ waiter: Waiter; answer: CombinedAnswer | null; complete: boolean }> = [];
    this.#p.storage.transactionSync(() => {
      applyOwnerChanges(sql, ownerChanges, now);
      if (locator) saveLocator(sql, locator);
      for (const report of reports) {
        const waiter = queue.find(report.waiter);
        if (report.applied.length === 0) {
          if (waiter) answered.push({ waiter, answer: null, complete: false });
          continue;
        }
        const earlier = readAnswer(sql, report.waiter);
        const outcomes = mergeOutcomes(earlier?.answer.outcomes ?? [], report.applied);
        const answer = {
          by: req.holder,
          ...(repository !== undefined ? { repository } : {}),
          token: req.token,
          outcomes,
        };
        // Complete only if nothing came back and, for a waiter here, every change it brought has
        // an outcome (a waiter absent now is checked again against what it brings when it re-joins).
        const complete =
          report.returned.length === 0 &&
          (waiter?.combine ? coversAll(waiter.combine.changes, outcomes) : earlier?.complete !== false);
        storeAnswer(sql, report.waiter, { answer, complete, at: now });
        const returned = report.returned.length > 0 ? `; ${report.returned.length} returned to it` : "";
        // The entry is the waiter's, so its repository reads it: the holder is its token, never its
        // run id, which may be another repository's (docs/security.md, "Repository isolation").
        store.record(
          now,
          "combined",
          report.waiter,
          req.token,
          `written by the holder of token ${req.token}${returned}`,
        );
        if (waiter) answered.push({ waiter, answer, complete });
      }
    });
    for (const { waiter, answer, complete } of answered) {
      const slot = waiter.combine;
      if (answer && complete && slot && slot.done.length > 0) {
        this.#combined(waiter, answer);
        continue;
      }
      // Changes came back: the waiter writes them under its own grant, in its turn.
      if (slot) {
        slot.settled = true;
        slot.takenBy = null;
      }
    }
    // A waiter kept past its timeout because its changes were taken is refused now.
    this.#p.giveUpOverdue();
    this.#p.commit([announce("waiters")]);
  }

  /** The alarm's part: age out stored answers, and keep an alarm for the rest while the lock is free. */
  ageAnswers(now: number, lease: LeaseRow | null): Effect[] {
    const due = pruneAnswers(this.#p.sql, now);
    return due !== null && lease === null ? [arm(due)] : [];
  }

  /** Answers every open call of a waiter whose changes were all written, and drops it from the queue. */
  #combined(waiter: Waiter, answer: CombinedAnswer): void {
    this.#p.queue.remove(waiter);
    clearTimeout(waiter.timer);
    deleteAnswer(this.#p.sql, waiter.holder);
    for (const done of waiter.combine?.done ?? []) done(answer);
    // A plain acquire of the same holder (already answered above when it shares the call) cannot
    // say "written for you": it is told the lock is held, as after a wait timeout.
    const refusal = this.#p.refusalFor(waiter);
    for (const resolve of waiter.resolvers) resolve(refusal);
  }

  /**
   * A grant (or refusal) for a waiter that brought changes, with what was written for it so far.
   * Whether a holder ever took its changes goes with it: a grant says `taken` (the waiter's intents
   * must stay even if its own write fails early), and a refusal says `untaken` only when this
   * object knows nothing of it was taken or written, the one case where the waiter may drop them.
   */
  #withCombined(
    holder: string,
    result: Result<LeaseGrant>,
    slot: CombineSlot | undefined,
  ): Result<GrantOrCombined> {
    const stored = readAnswer(this.#p.sql, holder);
    if (!result.ok) {
      if (result.error.code !== "LOCK_HELD" || slot?.everTaken || stored) return result;
      return { ok: false, error: { ...result.error, detail: { ...result.error.detail, untaken: true } } };
    }
    if (stored) deleteAnswer(this.#p.sql, holder);
    const taken = slot?.everTaken ? { taken: true } : {};
    return ok({ grant: result.value, combined: stored?.answer ?? null, ...taken });
  }
}

/** A rejoin with other changes than a holder took for this waiter: they may still be written. */
function rejoinRefused(key: string): Result<never> {
  return fail(
    "CONCURRENT_MODIFICATION",
    `${key}: changes this run queued earlier were taken by another run's write and may still be written; its other changes wait until that write is answered`,
    { lock: key },
  );
}
