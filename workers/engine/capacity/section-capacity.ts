/**
 * The lists' caps inside one critical section (docs/design.md, "Lists at their cap", "Evicting
 * stale scopes"): the run's own changes fitted without any waiter, each waiter fitted in queue
 * order, the refusal naming who holds a full list, and — with the environment's `evictStale` — the
 * stale scopes taken to make room, their leases checked before the write and before their leaves.
 */
import type { SponsonError } from "../../../shared/errors";
import type { ItemOwnership, OwnerChange, OwnershipShares } from "../../../shared/schemas/ownership";
import type { GroupContext } from "../contracts/group-context";
import type { WriterParts } from "../contracts/writer-parts";
import type { RunList } from "../lease/owner-bookkeeping";
import type { Item } from "../plan/item";
import type { Change, Decided } from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";
import { type Candidate, Evictions } from "./eviction";
import { type FitInput, fitGroup, waiterOf } from "./fitting";
import { type ListFill, listFull } from "./list-fill";
import { type ListOwners, type OwnersOf, ownersOnce } from "./list-owners";
import { makeRoom, type Room, type RoomInput } from "./make-room";
import { quotaExceeded, quotaOfList } from "./quota";
import { leaseOverQuota, type SharesInput } from "./quota-under-lease";

/**
 * What the shares of a list are checked against (docs/design.md, "A share of each list"), read
 * under the lease with the group's ownership (write/section-read.ts): the ownership of the run's
 * other entries on the lists and the lock's counts.
 */
export interface QuotaRead {
  along: ItemOwnership[];
  shares: OwnershipShares | null;
}

export class SectionCapacity {
  readonly #w: WriterParts;
  readonly #group: GroupContext;
  /** Who holds a full list, read once under this lease (eviction and the refusal share it). */
  readonly #owners: OwnersOf | null;
  /** With the environment's `evictStale`: the stale scopes taken to make room (eviction.ts). */
  readonly #evictions: Evictions | null;
  /** The removals eviction added this attempt, by change: whose entry each one is. */
  #evicted = new Map<Change, Candidate>();
  /** The list eviction could not make fit this attempt (its id): the refusal names that one. */
  #short: string | null = null;
  /**
   * Waiters whose changes would take a list past its cap or a share past its quota: they go back,
   * refused alone (each writes them itself, where its own check answers in full).
   */
  readonly full = new Map<string, SponsonError>();

  constructor(group: GroupContext) {
    const { parts: w, lease } = group;
    this.#w = w;
    this.#group = group;
    const { deps, run } = w;
    this.#owners =
      lease !== null && deps.controls.ownership
        ? ownersOnce({ deps, lease, repository: run.repository })
        : null;
    this.#evictions =
      this.#owners !== null && deps.evictStale?.(run.environment) === true
        ? new Evictions(group, this.#owners)
        : null;
  }

  /**
   * What the shares are checked with: the lock's counts read with `owns`, the run's other entries
   * on the lists (null where ownership does not apply, from a lock object that counts none, or
   * with the `leaseQuota` control off).
   */
  sharesInput(
    quota: QuotaRead | null,
    { owns, runList }: { owns: readonly ItemOwnership[] | null; runList: RunList },
  ): SharesInput | null {
    const { run, deps } = this.#w;
    if (!quota?.shares || !owns || !deps.controls.leaseQuota) return null;
    return {
      shares: quota.shares,
      known: [...owns, ...quota.along],
      retiring: runList.retiring,
      elsewhere: { owner: ownerOf(run), items: runList.elsewhere },
      quotaOf: (item) => quotaOfList(item.op, deps.connections.limitsOf(item.connection, item.opName)),
      repositoryOf: (id) =>
        id === run.repository.id ? run.repository : { id, name: "(another repository)" },
    };
  }

  /** A new attempt decides afresh: what the last one meant to evict is chosen again. */
  startAttempt(): void {
    this.#evicted = new Map();
    this.#short = null;
  }

  /** Room made by evicting stale scopes' entries, when the environment evicts (else none). */
  async makeRoom(input: RoomInput): Promise<Room> {
    if (!this.#evictions) return { owns: input.owns, added: [], seen: [], evicted: new Map(), short: null };
    const room = await makeRoom(this.#group, this.#evictions, input);
    // Each attempt decides afresh (a refused one is read again): what it does not evict goes back.
    await this.#evictions.keepOnly(new Set(room.evicted.values()));
    this.#evicted = room.evicted;
    this.#short = room.short;
    return room;
  }

  /** Whether this attempt's write removes stale scopes' entries (their leases are held). */
  get evicting(): boolean {
    return this.#evictions !== null && this.#evicted.size > 0;
  }

  /**
   * Each evicted scope's lease, by a round trip after the claims: one lost since it was
   * taken (force-released, lapsed) may have a holder of its own by now, whose entry this is again.
   * Answers the lost ones (environment/scope): the group is read, decided and fitted again.
   */
  async evictedLeasesLost(): Promise<string[]> {
    if (!this.#evictions || this.#evicted.size === 0) return [];
    const lost = await this.#evictions.lost(new Set(this.#evicted.values()));
    return lost.map((c) => `${c.share.environment}/${c.share.scope}`);
  }

  /**
   * The ownership the write's removals give up, checked right before it is recorded: an evicted
   * scope whose lease is lost by now keeps its ownership (another holder may have the scope; its
   * receipt is then not written either, and its destroy finds the entry absent), and so does one
   * whose receipt could not record the eviction first (evicted-receipt.ts): the lock never stops
   * naming a scope as owner of an entry its ledger still names. `check`: the run's own scope check,
   * made alongside.
   */
  async leaves(decisions: readonly Decided[], check: () => Promise<unknown>): Promise<OwnerChange[]> {
    const after = decisions.flatMap((d) => d.ownersAfter);
    if (!this.#evictions || this.#evicted.size === 0) {
      await check();
      return after;
    }
    // Every lease checked before any evicted receipt is written: a failed check fails the group
    // with no evicted receipt written, so each stale scope keeps owning what its ledger names.
    await Promise.all([check(), this.#evictions.lost(new Set(this.#evicted.values()))]);
    const noted = await this.#evictions.noteRemovals(this.#evictedItems(decisions));
    const evicted = new Set([...this.#evicted.values()].map((c) => c.owner));
    return after.filter(
      (change) =>
        !("owner" in change) || !evicted.has(change.owner as string) || noted.has(change.owner as string),
    );
  }

  /**
   * After the leaves, `left` saying whether the call carrying them succeeded: the evicted scopes'
   * receipts and audit records, then their release.
   */
  async recordEvictions(decisions: readonly Decided[], { left }: { left: boolean }): Promise<void> {
    await this.#evictions?.record(this.#evictedItems(decisions), left);
  }

  /** The stale scope leases still held (the write failed, or they were not needed): given back. */
  async releaseEvictions(): Promise<void> {
    await this.#evictions?.releaseAll();
  }

  /** The evicted scopes' items the write removed (`#takenOnly` left no other evicted removal). */
  #evictedItems(decisions: readonly Decided[]): Map<Candidate, Item[]> {
    const out = new Map<Candidate, Item[]>();
    for (const d of decisions) {
      const c = this.#evicted.get(d.change);
      if (!c || d.outcome !== "written") continue;
      out.set(c, [...(out.get(c) ?? []), d.change.item]);
    }
    return out;
  }

  /**
   * The run's own changes must fit the list's cap, or the group is refused (LIST_FULL, nothing
   * touched, its refusal naming who holds the list); each waiter joins the write only if it still
   * fits, else it is refused alone (fitting.ts `fitGroup`, pure). Waiters found `gone` are left out.
   */
  async fit(input: FitInput, gone: ReadonlySet<string>): Promise<Decided[]> {
    const fitted = fitGroup(input, gone, this.#short);
    if (fitted.ownFill) throw await this.#refusal(fitted.ownFill);
    for (const waiter of fitted.kept) this.full.delete(waiter);
    for (const [waiter, err] of fitted.refused) this.full.set(waiter, err);
    return this.#takenOnly(fitted.decisions);
  }

  /**
   * The run's own changes must not take its scope's or its repository's share of a list past a
   * quota, decided without any waiter and before any room is made: a refused run evicts nothing.
   */
  async ownShares({ object, state, decideFor, shares }: FitInput, gone: ReadonlySet<string>): Promise<void> {
    if (!shares) return;
    const everyone = decideFor(gone);
    const waiters = new Set(everyone.map(waiterOf).filter((x): x is string => x !== null));
    const own = decideFor(new Set([...gone, ...waiters])).filter((d) => waiterOf(d) === null);
    const { run } = this.#w;
    const breach = leaseOverQuota({
      ...shares,
      object,
      decisions: own,
      who: { owner: ownerOf(run), repository: run.repository },
    });
    if (!breach) return;
    if (breach.share === "scope" || this.#owners === null) throw quotaExceeded(breach);
    // Who holds the repository's share: help, not the decision (as a full list's owners).
    const item = own.find((d) => d.change.item.opName === breach.op)?.change.item;
    const keys = item?.op.batch && state !== null ? item.op.batch.keys(state, item.params) : [];
    let owners: ListOwners | undefined;
    try {
      owners = (await this.#owners({ op: breach.op, keys })).answer;
    } catch (err) {
      this.#w.run.warn(`quota: the owners of ${object} were not read: ${String(err)}`);
    }
    throw quotaExceeded(breach, owners);
  }

  /**
   * The decisions less every evicted removal that would not take the entry off the provider: a
   * kept waiter that joins an entry being evicted makes that removal a let-go (`left`), and an
   * eviction only ever takes what it removes. The stale scope keeps that entry whole — its
   * ownership (no leave is claimed for it) and its ledger — both still true, and the waiter
   * shares it (docs/design.md, "Evicting stale scopes").
   */
  #takenOnly(decisions: Decided[]): Decided[] {
    return decisions.filter((d) => !this.#evicted.has(d.change) || d.outcome === "written");
  }

  /**
   * The run's own refusal names who holds the list (its owners under this lease, their scopes'
   * staleness); a waiter's goes back without it and its own check answers in full. The detail is
   * help, not the decision: failing to gather it still refuses, with the counts alone.
   */
  async #refusal(fill: ListFill): Promise<SponsonError> {
    if (this.#owners === null) return listFull(fill);
    try {
      return listFull(fill, (await this.#owners(fill)).answer);
    } catch (err) {
      this.#w.run.warn(`list-full: the owners of ${fill.object} were not read: ${String(err)}`);
      return listFull(fill);
    }
  }
}
