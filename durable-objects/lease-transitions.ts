/**
 * The lease's state transitions (docs/design.md, "Lease protocol"): acquire's decision step, the
 * hand-over to the first waiter, expiry and a waiter's timeout. Each is synchronous from reading the
 * lease to writing its outcome, so no other call interleaves inside one; the decisions themselves
 * are lease-rules.ts's, the storage lease-store.ts's.
 */
import { ok, type Result } from "../shared/errors";
import { lockKind } from "../shared/lock-keys";
import type { AcquireRequest } from "../shared/rpc/lease-lock";
import type { LeaseGrant } from "../shared/schemas/lock";
import type { RunOrigin } from "../shared/schemas/provenance";
import { isTaken } from "./combine-queue";
import { type ExpiredLease, rememberExpired, takeExpired } from "./expired-lease";
import { holdRefusal } from "./hold-rules";
import type { HoldStore } from "./hold-store";
import {
  type Asker,
  decideAcquire,
  endOfLease,
  heldRefusal,
  isExpired,
  type LeaseRow,
  lockDelayOf,
} from "./lease-rules";
import type { LeaseStore } from "./lease-store";
import type { LockChange } from "./lock-feed";
import { waiterCapRefusal } from "./waiter-cap";
import { type Waiter, WaiterQueue } from "./waiter-queue";

/** What acquire's decision step did: answered at once, or queued the caller (answered on grant or timeout). */
export type AcquireStep =
  | { kind: "answered"; result: Result<LeaseGrant> }
  | { kind: "queued"; answer: Promise<Result<LeaseGrant>> };

export function settled(step: AcquireStep): Promise<Result<LeaseGrant>> {
  return step.kind === "answered" ? Promise.resolve(step.result) : step.answer;
}

export interface TransitionParts {
  store: LeaseStore;
  /** An admin's hold blocks every next grant while in force (docs/design.md, "Lease protocol: holds"). */
  holds: HoldStore;
  announce(change: LockChange): void;
  /** After a transition: bring the held-lock index in line, in the background. */
  syncIndexLater(): void;
  /**
   * After a takeover is written (a newcomer's, or the first grant after an expiry ended a claimed
   * lease, to a waiter or a newcomer): tell operators, in the background (never fails the grant).
   */
  tookOver(previous: ExpiredLease, grant: LeaseGrant): void;
}

export class LeaseTransitions {
  readonly #p: TransitionParts;
  readonly queue: WaiterQueue;

  constructor(parts: TransitionParts) {
    this.#p = parts;
    this.queue = new WaiterQueue((waiter) => this.#giveUp(waiter));
  }

  /**
   * acquire's decision step, synchronous from reading the lease to applying the decision: when it
   * returns, the lease is granted or renewed, the caller refused, or the caller is in the queue.
   */
  acquireStep(req: AcquireRequest): AcquireStep {
    const { store } = this.#p;
    store.remember(req.key, req.identity ?? null);
    const now = Date.now();
    this.promote(now);
    const lease = store.lease();
    const decision = decideAcquire(lease, req.holder, now, this.queue.length, this.#noGrantBefore(now));
    switch (decision.kind) {
      case "reacquire": {
        // The holder asking again is alive: this also claims a grant it has not confirmed yet.
        const renewed = store.extend(lease as LeaseRow, req.ttlMs, now, "re-acquire");
        this.#p.syncIndexLater();
        return { kind: "answered", result: ok(store.grantOf(renewed)) };
      }
      case "grant": {
        // A newcomer after the alarm freed an expired lease takes it over all the same.
        const expired = takeExpired(store);
        const grant = this.#grant(req, now, "acquired");
        if (expired) this.#p.tookOver(expired, grant);
        return { kind: "answered", result: ok(grant) };
      }
      case "takeover": {
        // The live row is the expired lease: anything remembered before it was granted is stale.
        takeExpired(store);
        const grant = this.#grant(req, now, "taken-over", decision.previous);
        this.#p.tookOver(decision.previous, grant);
        return { kind: "answered", result: ok(grant) };
      }
      case "busy": {
        if (!req.wait) return { kind: "answered", result: this.held(decision.lease, this.askerOf(req)) };
        const queued = this.queue.find(req.holder);
        // A client retrying after a lost answer re-attaches to its place instead of queueing twice.
        if (queued) return { kind: "queued", answer: this.queue.reattach(queued, req, now) };
        const capped = waiterCapRefusal(this.queue.all(), req);
        if (capped) return { kind: "answered", result: capped };
        const answer = this.queue.enqueue(req, now);
        this.#p.announce("waiters");
        return { kind: "queued", answer };
      }
    }
  }

  /** Expire a due lease and hand the lock to the first waiter; repeated while grants are due. */
  promote(now: number): void {
    const { store } = this.#p;
    let lease = store.lease();
    // Within a lock-delay nobody is granted; the alarm armed for its end hands the lock over.
    if (this.queue.length > 0 && now < store.quietUntil(now)) return;
    // A claimed lease that expired with a run waiting: its holder died, and the waiter takes over.
    if (lease && isExpired(lease, now) && this.queue.length > 0) {
      this.#end(now, lease);
      lease = null;
    }
    // A hold blocks only the next grant: a lease still ends, and waiters kept past their timeout
    // still go below (docs/design.md, "Lease protocol: holds").
    if (lease === null && now >= this.#p.holds.until(now)) {
      const next = this.queue.next();
      if (next) {
        // Provisional until claimed: a waiter whose caller has gone never claims, and the lock
        // lapses to the next waiter after the claim window instead of after a whole TTL.
        // Whether this grant ends a lock-delay or a hold after an expiry, or follows it at once.
        const expired = takeExpired(store);
        const grant = store.write(next, now, "acquired", "granted to waiter", {
          claimWindowMs: next.claimWindowMs,
          lockDelayMs: next.lockDelayMs,
        });
        for (const resolve of next.resolvers) resolve(ok(grant));
        this.#p.syncIndexLater();
        // Told like a newcomer's takeover (docs/design.md, "Lease protocol"); an unclaimed grant
        // that lapsed had no holder at work, so its hand-off is not (#end remembers only expiries).
        if (expired) this.#p.tookOver(expired, grant);
      }
    }
    // A lease that ended here untakes what it took: waiters kept past their timeout go now.
    this.giveUpOverdue();
  }

  expireIfDue(now: number): void {
    const lease = this.#p.store.lease();
    if (lease && isExpired(lease, now)) this.#end(now, lease);
  }

  /** LOCK_HELD naming the hold in force, else the live lease, for a caller that did not wait or whose wait ended. */
  held(lease: LeaseRow | null, asker: Asker): Result<never> {
    const { store } = this.#p;
    const now = Date.now();
    const hold = this.#p.holds.inForce(now);
    // A lease outliving the hold still holds the lock after it: Retry-After is the later end.
    const leaseEnd = lease && !isExpired(lease, now) ? lease.expiresAt : 0;
    if (hold) return holdRefusal(hold, { key: store.key ?? "", now, leaseEnd, position: asker.position });
    const free = {
      now,
      waiting: this.queue.length,
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
    const scopeLock = lockKind(this.#p.store.key ?? "") === "scope";
    const viewer = scopeLock ? null : (req.origin?.repositoryId ?? null);
    return position === undefined ? { viewer } : { viewer, position };
  }

  /** No grant before this: a lock-delay's end, or a hold's (a hold is a quiet time an admin sets). */
  #noGrantBefore(now: number): number {
    return Math.max(this.#p.store.quietUntil(now), this.#p.holds.until(now));
  }

  /**
   * Frees an expired lease, recording whether it was an unclaimed grant that lapsed. A claimed one
   * is remembered until the next grant, which tells the takeover: the alarm frees it at the
   * expiry, but a lock-delay or a hold may put that grant well after (docs/design.md, "Lease protocol").
   */
  #end(now: number, lease: LeaseRow): void {
    const lapsed = endOfLease(lease) === "claim-lapsed";
    if (!lapsed) rememberExpired(this.#p.store, lease);
    this.#p.store.free(
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
  ): LeaseGrant {
    const { store } = this.#p;
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
    this.#p.syncIndexLater();
    return grant;
  }

  /**
   * Refuses the waiters whose timeout passed while their changes were taken, once they no longer
   * are (the report came, or the lease that took them ended). Called after each report and at the
   * end of every promote, which runs after every end of a lease.
   */
  giveUpOverdue(): void {
    const liveToken = this.#p.store.lease()?.token ?? null;
    const due = this.queue.all().filter((w) => w.overdue && !(w.combine && isTaken(w.combine, liveToken)));
    for (const waiter of due) this.#refuse(waiter);
  }

  /**
   * A waiter's timeout: check the clock first, since an expiry may be due that no alarm has run. A
   * waiter whose changes the live holder took is not refused: that holder may be writing them now,
   * and a refused waiter would drop the intents for them (docs/design.md, "Write combining: the
   * lock object's side"). It waits for the report or the end of that lease.
   */
  #giveUp(waiter: Waiter): void {
    this.promote(Date.now());
    if (!this.queue.all().includes(waiter)) return; // already granted
    const liveToken = this.#p.store.lease()?.token ?? null;
    if (waiter.combine && isTaken(waiter.combine, liveToken)) {
      waiter.overdue = true;
      return;
    }
    this.#refuse(waiter);
  }

  #refuse(waiter: Waiter): void {
    const position = this.queue.all().indexOf(waiter) + 1;
    if (!this.queue.remove(waiter)) return;
    this.#p.announce("waiters");
    const refusal = this.held(this.#p.store.lease(), this.askerOf(waiter, position));
    for (const resolve of waiter.resolvers) resolve(refusal);
  }
}
