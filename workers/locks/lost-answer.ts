/**
 * Answers the acquire loop did not get (docs/design.md, "Lease protocol": a lost answer is given
 * back). Either may hold a lease nobody holds client-side — never renewed, never released — so the
 * lock refuses every other run until its expiry and the lock-delay after it:
 *
 * - **lost**: a call that throws instead of answering — a connection lost, an object reset — may
 *   have been decided by the object first: a grant made, a claim taken. So when the loop ends
 *   refused with the object's last word on this holder lost, the client asks once more without
 *   waiting, with the same holder: a live lease of that holder is answered with its own token (a
 *   re-acquire, which also claims a provisional grant), a free lock is granted as the lost call
 *   would have been; either way the release that follows is holder- and token-checked, so it ends
 *   only the lease this holder was just answered, never anyone else's. Refused (another run holds
 *   it, a hold): this holder holds nothing there. "Overloaded" is not lost: the runtime refused the
 *   call before the object saw it.
 * - **late**: a waiting call the race against the run's wait deadline gave up on (deadline-wait.ts)
 *   is still open, and the object may grant it after all — at once, when it reached a free lock
 *   late, or by a handoff. The client keeps watching it: a grant it brings is released (holder and
 *   token checked); a call that then throws is given back as a lost one.
 *
 * While either is in flight the holder does not ask for that lock again (ask-guard.ts): a
 * re-acquire would be handed the very lease the give-back ends.
 */
import type { Result } from "../../shared/errors";
import { LOCK_DELAY_MS } from "../../shared/lease-defaults";
import type { LeaseGrant } from "../../shared/schemas/lock";
import { type Answer, type Ask, acquireLoop, type Final, flagsOf } from "./acquire-loop";
import { noteUnanswered, refuseAskingAgain } from "./ask-guard";
import { RELEASE_BACKOFF_MS } from "./lease";
import type { LeaseSettings } from "./lease-options";
import type { LeaseTarget } from "./lock-target";

/**
 * The acquire loop, the give-back after it when it ended refused with the object's answer to this
 * holder's last acquire or claim lost, and a watch on an acquire it gave up on at the deadline.
 */
export async function acquireGivingBack(
  target: LeaseTarget,
  holder: string,
  s: LeaseSettings,
  ask: Ask,
): Promise<Final> {
  refuseAskingAgain(target, holder, s.clock.now());
  let lost = false;
  /** Asks not answered yet: one left when the loop ends is an ask the race gave up on. */
  const open = new Set<Promise<Result<Answer>>>();
  const watched = <T>(call: Promise<T>): Promise<T> => {
    lost = false;
    return call.then(
      (answer) => {
        lost = false;
        return answer;
      },
      (err: unknown) => {
        if (!flagsOf(err).overloaded) lost = true;
        throw err;
      },
    );
  };
  const asked: Ask = (req) => {
    const call = ask(req);
    open.add(call);
    const settled = () => open.delete(call);
    call.then(settled, settled);
    return watched(call);
  };
  const claimWatched: LeaseTarget = { ...target, claim: (req) => watched(target.claim(req)) };
  const end = await acquireLoop(claimWatched, holder, s, asked);
  for (const call of open) watchLate(call, { target, holder, s });
  if (end.kind === "refused" && lost) await giveBack(target, holder, s);
  return end;
}

interface Giving {
  target: LeaseTarget;
  holder: string;
  s: LeaseSettings;
}

/**
 * A call the race gave up on: what it brings later is given back, and until then not asked again —
 * unless it comes after the guard stopped counting it (ask-guard.ts `answered`): the holder may
 * hold that lease again by then.
 */
function watchLate(call: Promise<Result<Answer>>, g: Giving): void {
  const note = noteUnanswered(g.target.key, g.holder, lastLiveAt(g.s));
  call
    .then(
      async (answer) => {
        // A combined answer wrote this run's changes and holds no lease; a refusal holds nothing.
        if (note.answered() && answer.ok && "grant" in answer.value)
          await release(g, answer.value.grant, "its answer came after the run's wait deadline");
      },
      async (err: unknown) => {
        if (note.answered() && !flagsOf(err).overloaded) await giveBack(g.target, g.holder, g.s);
      },
    )
    .catch(() => {})
    .finally(note.settle);
}

/**
 * When a lease a given-up call brings has ended even if nobody claims or releases it (the holder's
 * clock): the object answers a waiter by the deadline, or, its changes taken, within the taken
 * grace after it; a grant then lives at most a TTL, and the lock-delay covers the clocks' drift.
 */
function lastLiveAt(s: LeaseSettings): number {
  const now = s.clock.now();
  const answeredBy = Math.max(now, s.deadline?.at ?? now) + s.takenGraceMs;
  return answeredBy + s.ttlMs + (s.lockDelayMs ?? LOCK_DELAY_MS);
}

async function giveBack(target: LeaseTarget, holder: string, s: LeaseSettings): Promise<void> {
  let grant: LeaseGrant;
  try {
    const again = await target.acquire({
      holder,
      ttlMs: s.ttlMs,
      wait: false,
      ...(s.lockDelayMs !== undefined ? { lockDelayMs: s.lockDelayMs } : {}),
      ...(s.origin ? { origin: s.origin } : {}),
    });
    if (!again.ok) return;
    grant = again.value;
  } catch {
    stays({ target, holder, s }, "the answer to its acquire was lost and asking again failed too");
    return;
  }
  await release({ target, holder, s }, grant, "the answer to its acquire was lost");
}

/** The release of a lease this holder was answered and does not hold: holder- and token-checked. */
async function release({ target, holder, s }: Giving, grant: LeaseGrant, why: string): Promise<void> {
  for (let attempt = 1; attempt <= s.releaseAttempts; attempt++) {
    try {
      // Any answer settles it: released, or already not this holder's (expired and taken, freed).
      await target.release({ holder, token: grant.token });
      return;
    } catch {
      // fall through to the backoff
    }
    if (attempt < s.releaseAttempts) await s.clock.sleep(RELEASE_BACKOFF_MS * 2 ** (attempt - 1));
  }
  stays({ target, holder, s }, `${why} and its release failed`);
}

function stays({ target, holder, s }: Giving, why: string): void {
  const what = target.identity ? `${target.key} (${target.identity})` : target.key;
  s.onWarning(
    `${holder}'s acquire of ${what}: ${why}: a lease it may have been granted stays held until its TTL and the lock-delay after it pass`,
  );
}
