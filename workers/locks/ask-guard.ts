/**
 * A holder never asks for a lock it may still hold (docs/design.md, "Lease protocol"). The lock
 * object answers a live lease's own holder asking again as a re-acquire — the same token, the
 * expiry extended — and the release that follows ends that lease plainly, with no lock-delay. A
 * run's holder may hold a lease it does not hold client-side in two ways:
 *
 * - one it abandoned (lease.ts `abandon`: a write under it has an unknown outcome): it must end by
 *   expiry, so that the lock-delay after it keeps every next holder from a late landing;
 * - one an ask it gave up on may still be granted (the race against the run's wait deadline ended
 *   first): given back once its answer comes (lost-answer.ts).
 *
 * Until such a lease can no longer be live — the abandoned one a TTL and a lock-delay after the
 * abandon, the given-up ask once it was answered and given back — the holder's next ask of that
 * lock is refused here, before anything reaches the object. Kept per isolate: a run lives in one,
 * and its holder (the run id) names it alone. Each entry carries the time after which it cannot
 * matter and is dropped then, also a given-up ask whose answer never comes back (the request that
 * watched it ended first): memory stays bounded by what is live. Once dropped, the holder may ask
 * again and hold that lock, and an answer that still comes is no longer given back: it may be the
 * very lease the holder holds (below).
 */
import { SponsonError } from "../../shared/errors";
import type { LeaseTarget } from "./lock-target";

/** Abandoned leases, by lock and holder: until when (the holder's clock) one may still be live. */
const abandoned = new Map<string, number>();
/**
 * Given-up asks not answered (and given back) yet, one entry each, with their lock and holder and
 * until when (the holder's clock) a lease their answer brings may still be live.
 */
const unanswered = new Map<object, { id: string; until: number }>();

/** A given-up ask, noted until its answer is given back (`settle`). */
export interface UnansweredAsk {
  /**
   * Its answer came: whether what it brings is still the watcher's to give back, kept noted (the
   * holder not asking again) until `settle`. False once the note was dropped: the holder may have
   * been granted that lock since, and the object answers a live lease's holder with that lease's
   * own token (a re-acquire), which a give-back would end plainly, with no lock-delay, while the
   * holder writes under it. A lease the answer brought nobody holds then ends by expiry.
   */
  answered(): boolean;
  settle(): void;
}

const idOf = (key: string, holder: string) => `${key}\u0000${holder}`;

/** `holder` abandoned its lease on `key`: the lease may be live until `until` (its clock). */
export function noteAbandoned(key: string, holder: string, until: number): void {
  const id = idOf(key, holder);
  abandoned.set(id, Math.max(abandoned.get(id) ?? 0, until));
}

/**
 * `holder` gave up on an ask of `key` still in flight; the answer returned settles it. `until`:
 * when any lease that answer could bring has ended, had it been answered and never claimed (the
 * holder's clock); the entry goes then even if the answer never comes back.
 */
export function noteUnanswered(key: string, holder: string, until: number): UnansweredAsk {
  const note = {};
  const entry = { id: idOf(key, holder), until };
  unanswered.set(note, entry);
  return {
    answered: () => {
      // Noted still, so every ask of this holder there was refused since: it holds no lease there.
      if (!unanswered.has(note)) return false;
      entry.until = Number.POSITIVE_INFINITY;
      return true;
    },
    settle: () => {
      unanswered.delete(note);
    },
  };
}

/**
 * Throws LOCK_HELD when `holder` may still hold a lease on `target` it does not hold client-side.
 * Nothing of this ask reached the object, but a given-up ask of the same holder may still be
 * queued there with the changes it brought (write combining), which a holder may take and write:
 * the refusal vouches `untaken` (its intents may go) only when no such ask is pending.
 */
export function refuseAskingAgain(target: LeaseTarget, holder: string, now: number): void {
  for (const [id, until] of abandoned) if (until <= now) abandoned.delete(id);
  for (const [note, { until }] of unanswered) if (until <= now) unanswered.delete(note);
  const id = idOf(target.key, holder);
  const what = target.identity ? `${target.key} (${target.identity})` : target.key;
  const pending = [...unanswered.values()].some((u) => u.id === id);
  const detail = { lock: target.key, ...(pending ? {} : { untaken: true }) };
  const until = abandoned.get(id);
  if (until !== undefined)
    throw new SponsonError(
      "LOCK_HELD",
      `${what}: ${holder} abandoned its lease there after a write whose outcome is unknown, and does not ask for it again before that lease has expired and its lock-delay passed (${new Date(until).toISOString()})`,
      detail,
    );
  if (pending)
    throw new SponsonError(
      "LOCK_HELD",
      `${what}: an earlier ask of ${holder} there has not been answered yet (a grant it brings is given back); ${holder} does not ask for it again until then`,
      detail,
    );
}
