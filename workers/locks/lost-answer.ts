/**
 * An acquire whose answer was lost (docs/design.md, "Lease protocol": a lost answer is given back).
 * A call that throws instead of answering — a connection lost, an object reset — may have been
 * decided by the object first: a grant made, a claim taken. Nobody holds that lease client-side, so
 * nobody renews or releases it, and the lock refuses every other run until its expiry and the
 * lock-delay after it. So when the loop ends refused with the object's last word on this holder
 * lost, the client asks once more without waiting, with the same holder: a live lease of that
 * holder is answered with its own token (a re-acquire, which also claims a provisional grant), a
 * free lock is granted as the lost call would have been; either way the release that follows is
 * holder- and token-checked, so it ends only the lease this holder was just answered, never anyone
 * else's. Refused (another run holds it, a hold): this holder holds nothing there.
 *
 * "Overloaded" is not lost: the runtime refused the call before the object saw it.
 */
import type { LeaseGrant } from "../../shared/schemas/lock";
import { type Ask, acquireLoop, type Final, flagsOf } from "./acquire-loop";
import { RELEASE_BACKOFF_MS } from "./lease";
import type { LeaseSettings } from "./lease-options";
import { type LockTarget, overriding } from "./lock-target";

/**
 * The acquire loop, and the give-back after it when it ended refused with the object's answer to
 * this holder's last acquire or claim lost.
 */
export async function acquireGivingBack(
  target: LockTarget,
  holder: string,
  s: LeaseSettings,
  ask: Ask,
): Promise<Final> {
  let lost = false;
  const watched = <T>(call: Promise<T>): Promise<T> =>
    call.then(
      (answer) => {
        lost = false;
        return answer;
      },
      (err: unknown) => {
        if (!flagsOf(err).overloaded) lost = true;
        throw err;
      },
    );
  const claimWatched = overriding(target, { claim: (req) => watched(target.claim(req)) });
  const end = await acquireLoop(claimWatched, holder, s, (req) => watched(ask(req)));
  if (end.kind === "refused" && lost) await giveBack(target, holder, s);
  return end;
}

async function giveBack(target: LockTarget, holder: string, s: LeaseSettings): Promise<void> {
  const what = target.identity ? `${target.key} (${target.identity})` : target.key;
  const stays = (why: string) =>
    s.onWarning(
      `the answer to ${holder}'s acquire of ${what} was lost and ${why}: a lease it may have been granted stays held until its TTL and the lock-delay after it pass`,
    );
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
    stays("asking again failed too");
    return;
  }
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
  stays("its release failed");
}
