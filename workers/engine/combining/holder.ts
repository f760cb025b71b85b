/**
 * Write combining, the holder's side (docs/design.md, "Write combining"): beside the group write,
 * never inside its critical section. Under its lease the holder takes what waiters queued, admits
 * each change as it admits its own lines (combining.ts), hands the critical section the admitted
 * ones to carry, and reports to each waiter what became of its own, or returns them all when the
 * write failed. A waiter whose run no longer holds its scope lease (asked at the take and again
 * right before the write) has its changes returned: a change written after its scope was recovered
 * would be owned by a scope whose ledger never says so.
 */
import { SponsonError } from "../../../shared/errors";
import type {
  CombineReport,
  QueuedChange,
  QueuedWaiter,
  ReturnedChange,
} from "../../../shared/schemas/combine";
import type { OwnerChange } from "../../../shared/schemas/ownership";
import { scopeOfOwner } from "../../../shared/schemas/ownership";
import { OTHER_REPOSITORY_RUN } from "../../../shared/schemas/provenance";
import type { ParentLease } from "../../locks/parent-lock";
import type { WriterParts } from "../contracts/writer-parts";
import type { Item } from "../plan/item";
import type { Change, Decided } from "../rules/group-decisions";
import { admitQueued, type Carried, type Queued } from "./combining";

interface Admitted {
  waiter: string;
  accepted: Queued[];
  returned: ReturnedChange[];
}

export class CombiningHolder implements Carried {
  readonly #w: WriterParts;
  readonly #lease: ParentLease;
  readonly #waiters: readonly QueuedWaiter[];
  readonly #admitted: readonly Admitted[];

  private constructor(w: WriterParts, lease: ParentLease, waiters: QueuedWaiter[], admitted: Admitted[]) {
    this.#w = w;
    this.#lease = lease;
    this.#waiters = waiters;
    this.#admitted = admitted;
  }

  /**
   * The changes queued for `first`'s object that the grant took (asked of the object only when the
   * grant answered none), admitted; null when nobody queued (then no report follows the write).
   */
  static async take(
    w: WriterParts,
    at: { first: Item; lease: ParentLease },
  ): Promise<CombiningHolder | null> {
    const waiters = at.lease.takenWithGrant() ?? (await at.lease.takeQueued());
    if (waiters.length === 0) return null;
    const alive = await Promise.all(waiters.map((q) => stillRunning(w, q.changes[0])));
    const admitted = waiters.map((q, i) =>
      alive[i]
        ? { waiter: q.waiter, ...admitQueued(w.deps, w.run, at.first, q) }
        : { waiter: q.waiter, accepted: [], returned: q.changes.map((c) => ({ id: c.id, error: gone(c) })) },
    );
    return new CombiningHolder(w, at.lease, waiters, admitted);
  }

  get queued(): readonly Queued[] {
    return this.#admitted.flatMap((a) => a.accepted);
  }

  async goneNow(): Promise<string[]> {
    const first = new Map<string, Queued>();
    for (const q of this.queued) if (!first.has(q.waiter)) first.set(q.waiter, q);
    const checked = await Promise.all(
      [...first.values()].map(async (q) => ((await stillRunning(this.#w, q)) ? null : q.waiter)),
    );
    return checked.filter((waiter): waiter is string => waiter !== null);
  }

  /**
   * Each waiter's answer after the write, with the ownership the removals give up (`after`), in one
   * call: the waiters found gone right before it get every change back.
   */
  report(
    outcome: {
      decisions: readonly Decided[];
      gone: ReadonlySet<string>;
      full: ReadonlyMap<string, SponsonError>;
      heldBack: ReadonlySet<Change>;
    },
    after: OwnerChange[],
  ) {
    const reports: CombineReport[] = this.#admitted.map(({ waiter, returned, accepted }) => {
      // Past the list's cap with the others: back, and refused alone when the waiter writes them.
      const full = outcome.full.get(waiter);
      if (full)
        return {
          waiter,
          applied: [],
          returned: [...returned, ...accepted.map((q) => ({ id: q.id, error: full.toInfo() }))],
        };
      return outcome.gone.has(waiter)
        ? {
            waiter,
            applied: [],
            returned: [...returned, ...accepted.map((q) => ({ id: q.id, error: gone(q) }))],
          }
        : {
            waiter,
            applied: outcome.decisions
              .filter((d): d is Decided & Queued => "waiter" in d && d.waiter === waiter)
              .map((d) => ({ id: d.id, outcome: d.outcome })),
            // Not written: an earlier request of the send on its item may still land after it.
            returned: [
              ...returned,
              ...accepted
                .filter((q) => outcome.heldBack.has(q.change))
                .map((q) => ({ id: q.id, error: mayStillLand(q) })),
            ],
          };
    });
    return this.#lease.reportCombined(reports, after, this.#w.run.repository.id);
  }

  /** The write failed: every waiter's changes go back, and each writes its own as without combining. */
  async returnAll(err: unknown): Promise<void> {
    const back: CombineReport[] = this.#waiters.map((q) => ({
      waiter: q.waiter,
      applied: [],
      returned: q.changes.map((c) => ({ id: c.id, error: this.#w.run.errorOf(err) })),
    }));
    // If even this report fails (the lease is lost), the waiters are untaken when the lease ends.
    await this.#lease.reportCombined(back, [], this.#w.run.repository.id).catch(() => {});
  }
}

/** Whether the waiter's run still holds its scope lease; not knowing is not "still running". */
async function stillRunning(
  w: WriterParts,
  change: Pick<QueuedChange, "owner" | "runId"> | undefined,
): Promise<boolean> {
  const scope = change ? scopeOfOwner(change.owner) : null;
  if (!change || !scope) return false;
  try {
    return await w.deps.locks.holdsScope(scope.repositoryId, scope.environment, scope.scope, change.runId);
  } catch (err) {
    // That waiter's changes go back (it writes them itself), and the holder's own group goes on.
    // Another repository's run is not named to this one (docs/security.md, "Repository isolation").
    const run = scope.repositoryId === w.run.repository.id ? `run ${change.runId}` : OTHER_REPOSITORY_RUN;
    w.run.warn(`could not read the scope lease of queued ${run}: ${String(err)}; its changes go back`);
    return false;
  }
}

function mayStillLand(q: Queued) {
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `${q.change.item.key}: an earlier request on it in the same write got no answer and may still land; the change goes back, to be written once it can no longer land`,
  ).toInfo();
}

function gone(change: Pick<QueuedChange, "runId">) {
  return new SponsonError(
    "LOCK_LOST",
    `run ${change.runId} no longer holds its scope lease: its change goes back`,
  ).toInfo();
}
