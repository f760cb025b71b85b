/**
 * Fencing around one group's provider write (docs/design.md, "Lease protocol"; "One group write,
 * one fence"): the leases are checked right before the write (assertHeld and a round trip) and
 * again by a round trip right after it. Every round trip the write path saves is decided here and
 * nowhere else: the claims made last before the write are the parent's check before it, a
 * token-checked parent call that follows the write (the leaves, a combining holder's report) or
 * else the parent's release is its check after, and the grant's ownership view stands for the first
 * read. A write attempt that got no answer may still land, even after a successful retry: the
 * parent lease then ends by a quiet release. A write whose outcome is unknown fails LOCK_LOST
 * saying so, and its lease is abandoned where it may be lost (the lock-delay of its expiry covers a
 * late landing) or released quietly where it is held; every evicted scope's lease held for it
 * (`guard`) is abandoned, so no new run of that scope starts before a late removal lands. What is
 * owed when is one phase, stepped by the pure `fenceStep` (fence-phase.ts); this class carries out
 * the effect each step returns.
 */
import { isSponsonError, SponsonError } from "../../../shared/errors";
import type { OwnedItem, OwnerChange, OwnershipView } from "../../../shared/schemas/ownership";
import type { OpContext } from "../../adapters/op-spec";
import { StaleState } from "../../adapters/stale-state";
import type { Lease } from "../../locks/lease";
import type { ParentLease } from "../../locks/parent-lock";
import { SimulatedCrash } from "../simulated-crash";
import {
  type FenceEffect,
  type FenceEvent,
  type FencePhase,
  fenceStart,
  fenceStep,
  type ParentCheckAfter,
} from "./fence-phase";
import { fencedFetch, leaseDeadline } from "./fenced-fetch";
import { PartlySent } from "./provider-write";
import { mayHaveLanded, UnansweredItems } from "./unanswered";

export interface FenceLeases {
  /** The run's scope lease; null for a write no scope makes (an admin's orphan removal). */
  scope: Lease | null;
  parent: ParentLease | null;
  /** The check after the write (off only with the test-only `fencing` control off). */
  checkAfter: boolean;
  /** What the write is of, for the unknown-outcome message: the parent (or the item). */
  what: string;
}

export class Fence {
  readonly #leases: FenceLeases;
  /** What is owed around the write (fence-phase.ts): changed only by `#step`. */
  #phase: FencePhase;
  /**
   * Every lease the write is made under, read at each request (fenced-fetch.ts): the run's scope's,
   * the parent's and each evicted scope's while it is held (`guard`).
   */
  readonly #fencing: Array<Lease | null>;
  /** The evicted scopes' leases: checked before each request, and abandoned with the parent's. */
  readonly #guarded = new Set<Lease>();

  constructor(leases: FenceLeases) {
    this.#leases = leases;
    this.#phase = fenceStart(leases.checkAfter);
    this.#fencing = [leases.scope, leases.parent];
  }

  /** One step of the phase (fenceStep): the next phase kept, the effect to carry out returned. */
  #step(event: FenceEvent): FenceEffect {
    const { phase, effect } = fenceStep(this.#phase, event);
    this.#phase = phase;
    return effect;
  }

  /** An evicted scope's lease joins the fence while held: checked per request, abandoned on doubt. */
  guard(lease: Lease): void {
    if (this.#guarded.has(lease)) return;
    this.#guarded.add(lease);
    this.#fencing.push(lease);
  }

  /** The lease is given back (or dropped) by its holder: no longer part of the write's fence. */
  unguard(lease: Lease): void {
    if (!this.#guarded.delete(lease)) return;
    this.#fencing.splice(this.#fencing.indexOf(lease), 1);
  }

  /** Whether a write under this fence has an unknown outcome (its lease abandoned or quietly released). */
  get inDoubt(): boolean {
    return this.#phase.stage === "in-doubt";
  }

  /** The items a write attempt under this lease got no answer for: no later request writes them. */
  readonly unanswered = new UnansweredItems();

  /**
   * `ctx` whose requests re-check the leases before any that can change the provider, bounded by
   * the earliest lease deadline (fenced-fetch.ts), and whose write attempts that go unanswered make
   * the parent's release quiet.
   */
  context(ctx: OpContext): OpContext {
    // The live list: an evicted scope's lease guarded later in the attempt counts from then on.
    const leases = this.#fencing;
    return {
      ...ctx,
      fetch: fencedFetch(ctx.fetch, leases, ctx.clock),
      deadline: leaseDeadline(leases),
      // Told at the attempt, so every end of the lease is quiet: a release after a success (the
      // release-as-check too), after the calls that follow the write, after a failure.
      onUnansweredWrite: () => this.#leases.parent?.writeMayLand(),
    };
  }

  /**
   * The ownership of `items`: the view the parent grant carried the first time it names every item
   * (nobody else changes ownership while the lease is held), read from the object otherwise.
   */
  async owners(items: OwnedItem[]): Promise<OwnershipView> {
    const parent = this.#leases.parent as ParentLease;
    this.#step({ kind: "other-call" });
    return parent.grantedOwners(items) ?? (await parent.owners(items));
  }

  /**
   * The ownership changes made before the write. Accepted only with the live token, they renew the
   * lease at the object: made last before the write, they are the parent's check before it.
   */
  async claim(changes: OwnerChange[]): Promise<void> {
    this.#step({ kind: "other-call" });
    if (changes.length === 0 || !this.#leases.parent) return;
    await this.#leases.parent.changeOwners(changes);
    this.#step({ kind: "claimed" });
  }

  /** A refused write's claims taken back: no check before a write (ParentLease.withdrawOwners). */
  async withdraw(changes: OwnerChange[]): Promise<void> {
    this.#step({ kind: "other-call" });
    if (changes.length > 0) await this.#leases.parent?.withdrawOwners(changes);
  }

  /** Both leases held right now: the scope's locally, the parent's by the claims or a round trip. */
  async beforeWrite(): Promise<void> {
    const { scope, parent } = this.#leases;
    const effect = this.#step({ kind: "before-write" });
    scope?.assertHeld();
    if (effect === "assert-held") parent?.assertHeld();
    else await parent?.check();
    // An evicted scope's lease past its deadline since its check: nothing is sent, and the group is
    // decided again (that check then drops it), rather than a send refused as an unknown outcome.
    for (const lease of this.#guarded) {
      try {
        lease.assertHeld();
      } catch {
        throw new StaleState({ evictedLeaseLapsed: true });
      }
    }
  }

  /**
   * Sends the write between the two checks. `after` says what the parent's check after it is: a
   * renewal, a token-checked parent call that comes after the write anyway (made through
   * `follow`), or the release (`releaseAfterWrite`), when nothing else is left to ask the object.
   */
  async write(send: () => Promise<void>, after: ParentCheckAfter = "renew"): Promise<void> {
    await this.beforeWrite();
    try {
      await send();
    } catch (err) {
      // A send of several wrote before it failed: the check after is owed (a parent call made next
      // stands for it; `failure` makes it when the group fails first).
      const failure = err instanceof PartlySent ? err.failure : err;
      if (err instanceof PartlySent) this.#step({ kind: "sent-partly" });
      // A precondition refusal wrote nothing; a provider's own answer says what happened. No
      // answer at all (the lease ran out, the request timed out, the connection broke) says nothing.
      if (failure instanceof StaleState || !mayHaveLanded(failure)) throw err;
      throw this.unknownOutcome(failure);
    }
    await this.afterWrite(after);
  }

  /**
   * A failure of the group after a send of several requests wrote part of its changes, with their
   * check after not made yet (docs/design.md, "A send of several requests refused half-way"): it is
   * made first. The lease lost, the outcome is unknown; held, the failure stands as it is.
   */
  async failure(err: unknown): Promise<unknown> {
    if (this.#step({ kind: "failure", crash: err instanceof SimulatedCrash }) !== "check-both") return err;
    try {
      await this.#leases.parent?.check();
      await this.#leases.scope?.check();
    } catch (lost) {
      return this.unknownOutcome(lost);
    }
    return err;
  }

  /**
   * The check after the write: the parent's renewal (unless a call or the release stands for it),
   * then the scope's. The scope's stays a renewal: its release comes only after the run's result
   * and receipt save, too late to reopen what this group reports.
   */
  async afterWrite(after: ParentCheckAfter = "renew"): Promise<void> {
    const { scope, parent } = this.#leases;
    const effect = this.#step({ kind: "written", after });
    if (effect === "none") return;
    try {
      if (effect === "renew-both") await parent?.check();
      await scope?.check();
    } catch (err) {
      throw this.unknownOutcome(err);
    }
    // What is left of the check (a call that follows, the release) is owed as for any write.
    this.#step({ kind: "checked-after", after, parent: parent !== null });
  }

  /**
   * A call made after the write. `parentFenced`: the call is the token-checked parent call
   * standing for the check after. Accepted, the lease was live when it arrived, so it was held all
   * through the write: tokens never come back once lost. Refused (LOCK_LOST, also the local
   * deadline), the write's outcome is unknown, as when the check fails. Any other failure (the
   * object not reached, a refusal that says nothing of the lease, or a call that is not the
   * parent's) makes the check it stands for, and stands only if the lease is still held.
   */
  async follow<T>(call: () => Promise<T>, parentFenced = true): Promise<T> {
    if (this.#step({ kind: "follow" }) === "plain-call") return call();
    try {
      return await call();
    } catch (err) {
      const refused = parentFenced && isSponsonError(err) && err.code === "LOCK_LOST";
      const effect = this.#step({ kind: refused ? "call-refused" : "call-failed" });
      if (effect === "unknown-outcome") throw this.unknownOutcome(err);
      try {
        if (effect === "check-parent") await this.#leases.parent?.check();
      } catch (lost) {
        throw this.unknownOutcome(lost);
      }
      throw err;
    }
  }

  /**
   * The parent's release, when it is the check after the write (nothing is done otherwise: the
   * lease's owner releases it). Past the holder's own deadline it is not sent: the lease is
   * abandoned as before, so it ends by expiry with its lock-delay. Sent, the object answers
   * whether the token was live when it arrived; live, the lease was held all through the write
   * (a token once lost never comes back, an expired lease is never renewed). Not live (expired:
   * freed with the lock-delay after its expiry; taken away; no answer), the write's outcome is
   * unknown exactly as when a renewal after it is refused.
   */
  async releaseAfterWrite(): Promise<void> {
    const parent = this.#leases.parent;
    if (this.#step({ kind: "release" }) !== "release-as-check" || !parent) return;
    try {
      parent.assertHeld();
    } catch (err) {
      throw this.unknownOutcome(err);
    }
    if (!(await parent.releaseHeld())) {
      throw this.unknownOutcome(
        new SponsonError("LOCK_LOST", `the release of ${parent.target.key} found the lease no longer live`),
      );
    }
  }

  /**
   * A write that may still land: the run does not take the object again, and the parent lease ends
   * so that nobody reads the object before a late landing. Lost (LOCK_LOST: refused, its deadline
   * passed), the lease is abandoned and ends by expiry, with the lock-delay after it. Still held (a
   * provider's own answer says the outcome is unknown), it ends by its owner's quiet release, with
   * the lock-delay after that release: every attempt was sent before it. The evicted scopes' leases
   * are abandoned either way: the write may still remove their entries, so no run of theirs may
   * start before then. Also the critical section's, for an own write it may not send (unanswered.ts).
   */
  unknownOutcome(cause: unknown): SponsonError {
    const lost = isSponsonError(cause) && cause.code === "LOCK_LOST";
    const parent = this.#leases.parent;
    if (parent) {
      if (lost) parent.abandon("a provider write under it has an unknown outcome");
      else parent.writeMayLand();
    }
    this.#step({ kind: "doubt", parent: parent !== null });
    for (const lease of this.#guarded) lease.abandon("an evicting write under it has an unknown outcome");
    const reason = cause instanceof Error ? cause.message : String(cause);
    const why = lost
      ? "the lease was lost around the provider write"
      : "an attempt of the provider write got no answer";
    return new SponsonError(
      "LOCK_LOST",
      `${this.#leases.what}: ${why}, so the write may have landed (outcome unknown); its intents stay for recovery (${reason})`,
      { outcome: "unknown" },
    );
  }
}
