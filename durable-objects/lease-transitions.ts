/**
 * The lease's state transitions (docs/design.md, "Lease protocol"): acquire's decision step, the
 * hand-over to the first waiter, expiry and a waiter's timeout. Each is synchronous from reading the
 * lease to writing its outcome, so no other call interleaves inside one; the decisions themselves
 * are lease-rules.ts's, the storage lease-store.ts's. Each returns what it did and its effects as
 * data (lock-effects.ts): the core commits them, and nothing here arms, announces or schedules.
 */
import { ok, type Result } from "../shared/errors";
import { lockKind } from "../shared/lock-keys";
import type { AcquireRequest, ReleaseRequest } from "../shared/rpc/lease-lock";
import type { LeaseGrant, ReleaseOutcome } from "../shared/schemas/lock";
import type { RunOrigin } from "../shared/schemas/provenance";
import { isTaken } from "./combine-queue";
import { type ExpiredLease, rememberExpired, rememberForceRelease, takeExpired } from "./lease-endings";
import {
  type Asker,
  decideAcquire,
  endOfLease,
  heldRefusal,
  isExpired,
  type LeaseRow,
  lockDelayOf,
  QUIET_RELEASE_NOTE,
  waiterCapRefusal,
} from "./lease-rules";
import type { LeaseStore } from "./lease-store";
import { announce, type Effect, effectsOnly, type Step, SYNC_INDEX } from "./lock-effects";
import { holdRefusal, type LockHolds } from "./lock-holds";
import type { Waiter, WaiterQueue } from "./waiter-queue";

/** What acquire's decision step did: answered at once, or queued the caller (answered on grant or timeout). */
export type AcquireStep =
  | { kind: "answered"; result: Result<LeaseGrant> }
  | { kind: "queued"; answer: Promise<Result<LeaseGrant>> };

const tookOver = (previous: ExpiredLease, grant: LeaseGrant): Effect => ({
  kind: "took-over",
  previous,
  grant,
});

export class LeaseTransitions {
  readonly #store: LeaseStore;
  /** An admin's hold blocks every next grant while in force (docs/design.md, "Lease protocol: holds"). */
  readonly #holds: LockHolds;
  readonly #queue: WaiterQueue;

  constructor(store: LeaseStore, holds: LockHolds, queue: WaiterQueue) {
    this.#store = store;
    this.#holds = holds;
    this.#queue = queue;
  }

  /**
   * acquire's decision step, synchronous from reading the lease to applying the decision: when it
   * returns, the lease is granted or renewed, the caller refused, or the caller is in the queue.
   */
  acquireStep(req: AcquireRequest): Step<AcquireStep> {
    const store = this.#store;
    store.remember(req.key, req.identity ?? null);
    const now = Date.now();
    const { effects } = this.promote(now);
    const lease = store.lease();
    const decision = decideAcquire(lease, req.holder, now, this.#queue.length, this.#noGrantBefore(now));
    const answered = (result: Result<LeaseGrant>, more: Effect[]): Step<AcquireStep> => ({
      result: { kind: "answered", result },
      effects: [...effects, ...more],
    });
    switch (decision.kind) {
      case "reacquire": {
        // The holder asking again is alive: this also claims a grant it has not confirmed yet.
        const renewed = store.extend(lease as LeaseRow, req.ttlMs, now, "re-acquire");
        return answered(ok(store.grantOf(renewed.result)), [...renewed.effects, SYNC_INDEX]);
      }
      case "grant": {
        // A newcomer after the alarm freed an expired lease takes it over all the same.
        const expired = takeExpired(store);
        const grant = this.#grant(req, now, "acquired");
        return answered(ok(grant.result), [
          ...grant.effects,
          ...(expired ? [tookOver(expired, grant.result)] : []),
        ]);
      }
      case "takeover": {
        // The live row is the expired lease: anything remembered before it was granted is stale.
        takeExpired(store);
        const grant = this.#grant(req, now, "taken-over", decision.previous);
        return answered(ok(grant.result), [...grant.effects, tookOver(decision.previous, grant.result)]);
      }
      case "busy": {
        if (!req.wait) return answered(this.held(decision.lease, this.askerOf(req)), []);
        const queued = this.#queue.find(req.holder);
        // A client retrying after a lost answer re-attaches to its place instead of queueing twice.
        if (queued)
          return { result: { kind: "queued", answer: this.#queue.reattach(queued, req, now) }, effects };
        const capped = waiterCapRefusal(this.#queue.all(), req);
        if (capped) return answered(capped, []);
        const answer = this.#queue.enqueue(req, now);
        return { result: { kind: "queued", answer }, effects: [...effects, announce("waiters")] };
      }
    }
  }

  /** Expire a due lease and hand the lock to the first waiter; repeated while grants are due. */
  promote(now: number): Step {
    const store = this.#store;
    const effects: Effect[] = [];
    let lease = store.lease();
    // Within a lock-delay nobody is granted; the alarm armed for its end hands the lock over.
    if (this.#queue.length > 0 && now < store.quietUntil(now)) return effectsOnly(effects);
    // A claimed lease that expired with a run waiting: its holder died, and the waiter takes over.
    if (lease && isExpired(lease, now) && this.#queue.length > 0) {
      effects.push(...this.#end(now, lease));
      lease = null;
    }
    // A hold blocks only the next grant: a lease still ends, and waiters kept past their timeout
    // still go below (docs/design.md, "Lease protocol: holds").
    if (lease === null && now >= this.#holds.until(now)) {
      const next = this.#queue.next();
      if (next) {
        // Provisional until claimed: a waiter whose caller has gone never claims, and the lock
        // lapses to the next waiter after the claim window instead of after a whole TTL.
        // Whether this grant ends a lock-delay or a hold after an expiry, or follows it at once.
        const expired = takeExpired(store);
        const grant = store.write(next, now, "acquired", "granted to waiter", {
          claimWindowMs: next.claimWindowMs,
          lockDelayMs: next.lockDelayMs,
        });
        for (const resolve of next.resolvers) resolve(ok(grant.result));
        effects.push(...grant.effects, SYNC_INDEX);
        // Told like a newcomer's takeover (docs/design.md, "Lease protocol"); an unclaimed grant
        // that lapsed had no holder at work, so its hand-off is not (#end remembers only expiries).
        if (expired) effects.push(tookOver(expired, grant.result));
      }
    }
    // A lease that ended here untakes what it took: waiters kept past their timeout go now.
    effects.push(...this.giveUpOverdue().effects);
    return effectsOnly(effects);
  }

  expireIfDue(now: number): Step {
    const lease = this.#store.lease();
    return effectsOnly(lease && isExpired(lease, now) ? this.#end(now, lease) : []);
  }

  /**
   * The holder's release, whether the lease was live when it arrived (`released`) or had expired
   * (`released-expired`); anyone else's changes nothing.
   */
  release(req: ReleaseRequest, now: number): Step<ReleaseOutcome> {
    const store = this.#store;
    store.remember(req.key, null);
    const lease = store.lease();
    if (lease === null || lease.holder !== req.holder || lease.token !== req.token) {
      const reason = lease === null ? "not-held" : "stale-token";
      return { result: { released: false, reason, at: now }, effects: this.promote(now).effects };
    }
    // Releasing an expired lease is still the holder's own release (nobody else had it yet), but
    // the history says it came late.
    const expired = isExpired(lease, now);
    // Quiet: a write attempt under it went unanswered and may still land (lease-rules.ts quietUntil).
    const quiet = req.quiet === true;
    const how = expired ? "released-expired" : "released";
    const freed = store.free({ how, at: now, quiet }, lease, quiet ? QUIET_RELEASE_NOTE : null);
    // The receipt etag its save left, for the next grant: only from a release in time (after an
    // expiry, nobody can vouch the holder's view was still the latest), and only a short string.
    if (!expired) store.handOverReceiptEtag(req.receiptEtag ?? null);
    // Not live any more: a holder using this release as its check after a write must hear it.
    return {
      result: { released: true, reason: how, at: now },
      effects: [...freed, ...this.promote(now).effects, SYNC_INDEX],
    };
  }

  /**
   * An admin's force-release. A lease past its expiry (the alarm had not freed it) ends as that
   * expiry: its lock-delay, if any, still applies (an unclaimed grant has none: nobody wrote); an
   * admin lifts no lock-delay.
   */
  forceRelease(req: { key: string; reason: string; actor: string }, now: number): Step<ReleaseOutcome> {
    const store = this.#store;
    store.remember(req.key, null);
    const lease = store.lease();
    if (lease === null) return { result: { released: false, reason: "not-held", at: now }, effects: [] };
    const past = isExpired(lease, now);
    const ended = past
      ? this.expireIfDue(now).effects
      : store.free({ how: "force-released", at: now }, lease, `by ${req.actor}: ${req.reason}`);
    if (!past) rememberForceRelease(store, lease, { actor: req.actor, reason: req.reason, at: now });
    const lockDelay = past && !lease.claimPending;
    const result = { released: true, reason: lockDelay ? "released-expired" : "released", at: now } as const;
    return { result, effects: [...ended, ...this.promote(now).effects, SYNC_INDEX] };
  }

  /** LOCK_HELD naming the hold in force, else the live lease, for a caller that did not wait or whose wait ended. */
  held(lease: LeaseRow | null, asker: Asker): Result<never> {
    const store = this.#store;
    const now = Date.now();
    const hold = this.#holds.inForce(now);
    // A lease outliving the hold still holds the lock after it: Retry-After is the later end.
    const leaseEnd = lease && !isExpired(lease, now) ? lease.expiresAt : 0;
    if (hold) return holdRefusal(hold, { key: store.key ?? "", now, leaseEnd, position: asker.position });
    const free = {
      now,
      waiting: this.#queue.length,
      quietUntil: store.quietUntil(now),
      quietAfter: store.quietAfter(now),
    };
    return heldRefusal({ key: store.key ?? "", identity: store.identity }, lease, asker, free);
  }

  /**
   * Whose eyes a refusal is for: a scope lock's askers are all of its repository (the key names it);
   * a parent lock's see another repository's run hidden (docs/security.md, "Repository isolation").
   */
  askerOf(req: { origin?: RunOrigin | null }, position?: number): Asker {
    const scopeLock = lockKind(this.#store.key ?? "") === "scope";
    const viewer = scopeLock ? null : (req.origin?.repositoryId ?? null);
    return position === undefined ? { viewer } : { viewer, position };
  }

  /** No grant before this: a lock-delay's end, or a hold's (a hold is a quiet time an admin sets). */
  #noGrantBefore(now: number): number {
    return Math.max(this.#store.quietUntil(now), this.#holds.until(now));
  }

  /**
   * Frees an expired lease, recording whether it was an unclaimed grant that lapsed. A claimed one
   * is remembered until the next grant, which tells the takeover: the alarm frees it at the
   * expiry, but a lock-delay or a hold may put that grant well after (docs/design.md, "Lease protocol").
   */
  #end(now: number, lease: LeaseRow): Effect[] {
    const lapsed = endOfLease(lease) === "claim-lapsed";
    if (!lapsed) rememberExpired(this.#store, lease);
    return this.#store.free(
      { how: endOfLease(lease), at: now },
      lease,
      lapsed ? "granted to a waiter that never claimed it" : null,
    );
  }

  #grant(
    req: AcquireRequest,
    now: number,
    transition: "acquired" | "taken-over",
    previous?: LeaseRow,
  ): Step<LeaseGrant> {
    const store = this.#store;
    const { holder, ttlMs } = req;
    const origin = req.origin ?? null;
    if (previous) {
      store.record(now, endOfLease(previous), previous.holder, previous.token, `taken over by ${holder}`);
      store.bump("takeovers");
    }
    const note = previous ? `previous holder ${previous.holder} (token ${previous.token})` : null;
    const grant = store.write({ holder, ttlMs, origin }, now, transition, note, {
      lockDelayMs: lockDelayOf(req.lockDelayMs),
    });
    return { result: grant.result, effects: [...grant.effects, SYNC_INDEX] };
  }

  /**
   * Refuses the waiters whose timeout passed while their changes were taken, once they no longer
   * are (the report came, or the lease that took them ended). Called after each report and at the
   * end of every promote, which runs after every end of a lease.
   */
  giveUpOverdue(): Step {
    const liveToken = this.#store.lease()?.token ?? null;
    const due = this.#queue.all().filter((w) => w.overdue && !(w.combine && isTaken(w.combine, liveToken)));
    return effectsOnly(due.flatMap((waiter) => this.#refuse(waiter)));
  }

  /**
   * A waiter's timeout: check the clock first, since an expiry may be due that no alarm has run. A
   * waiter whose changes the live holder took is not refused: that holder may be writing them now,
   * and a refused waiter would drop the intents for them (docs/design.md, "Write combining: the
   * lock object's side"). It waits for the report or the end of that lease.
   */
  giveUp(waiter: Waiter): Step {
    const { effects } = this.promote(Date.now());
    if (!this.#queue.all().includes(waiter)) return effectsOnly(effects); // already granted
    const liveToken = this.#store.lease()?.token ?? null;
    if (waiter.combine && isTaken(waiter.combine, liveToken)) {
      waiter.overdue = true;
      return effectsOnly(effects);
    }
    return effectsOnly([...effects, ...this.#refuse(waiter)]);
  }

  #refuse(waiter: Waiter): Effect[] {
    const position = this.#queue.all().indexOf(waiter) + 1;
    if (!this.#queue.remove(waiter)) return [];
    const refusal = this.held(this.#store.lease(), this.askerOf(waiter, position));
    for (const resolve of waiter.resolvers) resolve(refusal);
    return [announce("waiters")];
  }
}
