/**
 * The parent lock's role (docs/design.md, "Ownership of shared entries", "Write combining"): a
 * lease on one shared object under which its holder reads and changes ownership, takes and reports
 * the changes waiters queued, and reads and remembers recent writes. Each call is fenced by the
 * token: a holder whose lease is gone gets LOCK_LOST and the lease is lost.
 */
import { fail, ok, SponsonError } from "../../shared/errors";
import type { CombinedAnswer, CombineReport, QueuedChange, QueuedWaiter } from "../../shared/schemas/combine";
import { type FillLevel, listId } from "../../shared/schemas/fill-level";
import type { Locator, OwnedItem, OwnerChange, OwnershipView } from "../../shared/schemas/ownership";
import type { RecentWrite } from "../../shared/schemas/recent-writes";
import { grantOf, plainAsk } from "./acquire-loop";
import { type Granted, Lease, RELEASE_BACKOFF_MS } from "./lease";
import { type LeaseOptions, type LeaseSettings, leaseOptions } from "./lease-options";
import type { ParentLeaseTarget } from "./lock-target";
import { acquireGivingBack } from "./lost-answer";

/** What acquire-or-combine came to: a lease (what is left to write), or every change written. */
export interface CombineOutcome {
  lease: ParentLease | null;
  /** What a holder already wrote for this run, if anything. */
  combined: CombinedAnswer | null;
  /** A holder took this run's changes (and may have written them): their intents stay. */
  taken: boolean;
}

export class ParentLease extends Lease {
  /** The ownership view the grant carried, until the first decision takes it (`grantedOwners`). */
  #granted: OwnershipView | null;
  /** The queue the grant took for this holder, until the holder takes it (`takenWithGrant`). */
  #queued: QueuedWaiter[] | null;
  /** Each capped list's fill as this holder's writes left it, for the release to carry. */
  readonly #fills = new Map<string, FillLevel>();
  /** A write sent under this lease may still land: the release asks for a quiet period. */
  #quiet = false;

  /** What this role may call: the lease, write combining, ownership and recent writes. */
  declare readonly target: ParentLeaseTarget;

  private constructor(target: ParentLeaseTarget, holder: string, granted: Granted, s: LeaseSettings) {
    super(target, holder, granted, s);
    this.#granted = granted.grant.ownership ?? null;
    this.#queued = granted.grant.queued ?? null;
  }

  /**
   * Notes the fill of the lists a write under this lease read or changed (docs/design.md, "Lists at
   * their cap"); kept by the lock object when the release carries it, so no call is added.
   */
  noteFills(fills: readonly FillLevel[]): void {
    for (const fill of fills) this.#fills.set(listId(fill), fill);
  }

  /**
   * An attempt of a write under this lease got no answer and may still land, whatever the write's
   * end: the release that ends the lease is quiet, so nobody is granted the lock before the
   * lock-delay after it (docs/design.md, "Fencing around a write"). The normal path never calls it.
   */
  writeMayLand(): void {
    this.#quiet = true;
  }

  override async release(): Promise<void> {
    await this.releaseHeld();
  }

  /**
   * The release, as the check after a write (docs/design.md, "Fencing around a write"): true only
   * when the object answered that this token was still live when it arrived, so the lease was held
   * all through the write; false when it had expired, was taken away, or no answer came. A quiet
   * release answers the same.
   */
  releaseHeld(): Promise<boolean> {
    return this.releaseWith({
      ...(this.#fills.size > 0 ? { fills: [...this.#fills.values()] } : {}),
      ...(this.#quiet ? { quiet: true as const } : {}),
    });
  }

  static async #started(target: ParentLeaseTarget, holder: string, granted: Granted, s: LeaseSettings) {
    const lease = new ParentLease(target, holder, granted, s);
    await lease.start(granted.before);
    return lease;
  }

  /** Takes the lease or throws LOCK_HELD, as ScopeLease.acquire does. */
  static async acquire(
    target: ParentLeaseTarget,
    holder: string,
    opts: LeaseOptions | LeaseSettings,
  ): Promise<ParentLease> {
    const s = leaseOptions(opts);
    return ParentLease.#started(
      target,
      holder,
      grantOf(await acquireGivingBack(target, holder, s, plainAsk(target))),
      s,
    );
  }

  /**
   * Write combining (docs/design.md, "Write combining: the lock object's side"): `acquire`, handing
   * the object the changes this run wants made there in case it has to wait. Either a lease (the
   * run writes what is left itself; `combined` names what the holder already wrote for it, if
   * anything) or no lease and `combined` covering every change. Claim and re-join behave as in
   * `acquire`: a re-join after an object restart finds the stored answer.
   */
  static async acquireOrCombine(
    target: ParentLeaseTarget,
    holder: string,
    opts: LeaseOptions | LeaseSettings,
    changes: QueuedChange[],
  ): Promise<CombineOutcome> {
    const s = leaseOptions(opts);
    let combined: CombinedAnswer | null = null;
    let taken = false;
    // The grant takes the queue behind this run in its own step: no takeQueued call after it.
    const end = await acquireGivingBack(target, holder, { ...s, takeQueue: true }, async (req) => {
      const result = await target.acquireOrCombine({ ...req, changes });
      if (!result.ok) return result;
      // The answer naming what was written is delivered once: a re-join after it keeps it.
      combined = result.value.combined ?? combined;
      taken ||= result.value.taken === true;
      if (result.value.grant !== null) return ok({ grant: result.value.grant });
      if (combined === null) return fail("INTERNAL", `${target.key} answered neither a grant nor a write`);
      return ok({ combined });
    });
    if (end.kind === "combined") return { lease: null, combined: end.answer, taken: true };
    if (end.kind === "refused") throw end.asks > 1 ? forgetUntaken(end.error) : end.error;
    const lease = await ParentLease.#started(target, holder, end, s);
    // A re-join (an object restart, a lapsed claim) forgets whether an earlier holder took them.
    return { lease, combined, taken: taken || end.asks > 1 };
  }

  /** The object's ownership of `items`, read as the holder (throws LOCK_LOST when no longer held). */
  async owners(items: OwnedItem[]): Promise<OwnershipView> {
    this.assertHeld();
    return this.fenced(await this.target.owners({ holder: this.holder, token: this.token, items }));
  }

  /**
   * The ownership of `items` as the grant answered it (LeaseOptions.items), if it names every one
   * of them; null otherwise, and on every later call: it is the view as of the grant, so only the
   * first decision may use it (this holder's own changes since make it stale, and a decision made
   * again reads afresh). Same answer `owners` would give, since nobody else can change ownership
   * while the lease is held.
   */
  grantedOwners(items: readonly OwnedItem[]): OwnershipView | null {
    this.assertHeld();
    const view = this.#granted;
    this.#granted = null;
    if (!view) return null;
    const found = items.map(({ op, key }) => view.items.find((v) => v.op === op && v.key === key));
    if (found.some((v) => v === undefined)) return null;
    return { ...view, items: found as OwnershipView["items"] };
  }

  /**
   * Changes ownership, accepted by the object only with this lease's current token. The object
   * renews the lease in the same call: the deadline moves exactly as after `renew`, so a change
   * that succeeded is a fencing check of the lease at that instant (docs/design.md, "Lease
   * protocol").
   */
  async changeOwners(
    changes: OwnerChange[],
    options: { rebuilt?: boolean; locator?: Locator } = {},
  ): Promise<OwnershipView> {
    this.assertHeld();
    this.#granted = null;
    const before = this.settings.clock.now();
    const answer = this.fenced(
      await this.target.changeOwners({ holder: this.holder, token: this.token, changes, ...options }),
    );
    this.renewed(before, answer.expiresAt);
    const { expiresAt: _, ...view } = answer;
    return view;
  }

  /**
   * A refused write's claims taken back (docs/design.md, "A send of several requests refused
   * half-way"): a claim left behind names the scope owner of an entry it never wrote, so a
   * transport failure (an object reset, overloaded) is tried again like a release. Each change sets
   * a state, so one that landed unanswered is harmless to repeat; LOCK_LOST is final.
   */
  async withdrawOwners(changes: OwnerChange[]): Promise<void> {
    const { releaseAttempts: attempts, clock } = this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.changeOwners(changes);
        return;
      } catch (err) {
        if (err instanceof SponsonError || attempt >= attempts) throw err;
        await clock.sleep(RELEASE_BACKOFF_MS * 2 ** (attempt - 1));
      }
    }
  }

  /**
   * The changes the grant (or its claim) took for this holder, once (LeaseGrant.queued); null when
   * the grant answered none (a plain acquire, or an object of the version before: then
   * `takeQueued` asks). Waiters that queued after the grant are the next holder's.
   */
  takenWithGrant(): QueuedWaiter[] | null {
    const queued = this.#queued;
    this.#queued = null;
    return queued;
  }

  /**
   * Takes the changes queued waiters brought that no holder took yet; they are this lease's to write
   * with its own and report (accepted only with this lease's current token).
   */
  async takeQueued(): Promise<QueuedWaiter[]> {
    this.assertHeld();
    return this.fenced(await this.target.takeQueued({ holder: this.holder, token: this.token })).waiters;
  }

  /**
   * Reports a combined write: records `ownerChanges` (and the op's locator) and each waiter's
   * answer in one step on the object, fenced like `changeOwners`.
   */
  async reportCombined(
    reports: CombineReport[],
    ownerChanges: OwnerChange[],
    repository: number,
    locator?: Locator,
  ): Promise<void> {
    this.assertHeld();
    const { holder, token } = this;
    this.fenced(
      await this.target.reportCombined(
        locator
          ? { holder, token, reports, ownerChanges, repository, locator }
          : { holder, token, reports, ownerChanges, repository },
      ),
    );
  }

  /** The object's recent writes, read as the holder (docs/design.md, "Providers that forget a write"). */
  async recentWrites(): Promise<RecentWrite[]> {
    this.assertHeld();
    return this.fenced(await this.target.recentWrites({ holder: this.holder, token: this.token }));
  }

  /** Remembers what a write just made true, accepted only with this lease's current token. */
  async rememberWrites(writes: RecentWrite[]): Promise<void> {
    this.assertHeld();
    if (writes.length === 0) return;
    this.fenced(await this.target.rememberWrites({ holder: this.holder, token: this.token, writes }));
  }
}

/** Only the object that kept the waiter all along can vouch that nobody took its changes. */
function forgetUntaken(err: unknown): unknown {
  if (!(err instanceof SponsonError) || !err.untaken) return err;
  const { untaken: _, ...detail } = err.detail ?? {};
  return new SponsonError(err.code, err.message, detail);
}
