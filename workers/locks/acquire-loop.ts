/**
 * Taking a lease (docs/design.md, "Lease protocol"): one loop over what each attempt came to. An
 * attempt asks the object (a plain acquire, or acquire-or-combine for a parent lock), claims a
 * grant handed over after a wait, and ends in one outcome:
 *
 * - `granted`: the lease is this caller's (claimed);
 * - `combined`: no lease: the holder wrote every change this waiter brought (parent locks);
 * - `rejoin`: ask again with the same holder: the claim came too late (the grant lapsed to the
 *   next waiter), the object restarted under a waiting call (every deploy drops its in-memory
 *   waiters), or the object said it is overloaded (still overloaded after OVERLOAD_ATTEMPTS asks:
 *   `LOCK_UNAVAILABLE`, 503, retriable);
 * - `refused`: the answer the caller gets (LOCK_HELD, a validation error, a bug).
 *
 * Asking again with the same holder is idempotent: it re-attaches to its place, or finds the grant
 * it was already given. Every re-join waits a bounded, jittered backoff first (through the
 * settings' clock and random, so tests decide it).
 *
 * The whole loop waits until one deadline, the run's (wait-deadline.ts): each waiting ask asks the
 * object for what is left of it and races its open call against it (deadline-wait.ts), no backoff
 * sleeps past it, and once it has passed an ask is a try that does not wait.
 */
import { type Result, SponsonError } from "../../shared/errors";
import type { AcquireRequest } from "../../shared/rpc/lease-lock";
import type { CombinedAnswer } from "../../shared/schemas/combine";
import type { LeaseGrant } from "../../shared/schemas/lock";
import { untilDeadline, withBudget } from "./deadline-wait";
import type { LeaseSettings } from "./lease-options";
import type { LeaseTarget } from "./lock-target";
import { WaitDeadline } from "./wait-deadline";
import { reportWhileWaiting } from "./waiting-reports";

/** How often one acquire re-joins after an object restart or a lapsed claim before giving up. */
export const REJOIN_ATTEMPTS = 5;
/** How often one acquire asks again after "overloaded" before passing the error on. */
export const OVERLOAD_ATTEMPTS = 6;
/** Re-join backoff: the first waits about REJOIN_BASE_MS, each next one twice as long, at most REJOIN_CAP_MS. */
export const REJOIN_BASE_MS = 50;
export const REJOIN_CAP_MS = 2_000;

/** An object's answer to one ask: a grant (to claim if provisional) or every change written. */
export type Answer = { grant: LeaseGrant } | { combined: CombinedAnswer };

/** One ask of the object; a role maps its own call's answer onto `Answer`. */
export type Ask = (req: Omit<AcquireRequest, "key" | "identity">) => Promise<Result<Answer>>;

export type Outcome =
  | { kind: "granted"; grant: LeaseGrant; before: number }
  | { kind: "combined"; answer: CombinedAnswer }
  | { kind: "rejoin"; why: "lapsed" | "reset" | "overloaded"; error: unknown }
  | { kind: "refused"; error: unknown };

/** The loop's end: never `rejoin`; `asks` is how many times the object was asked. */
export type Final = Exclude<Outcome, { kind: "rejoin" }> & { asks: number };

/** The ask of a plain acquire: a grant or the refusal. */
export function plainAsk(target: LeaseTarget): Ask {
  return async (req) => {
    const result = await target.acquire(req);
    return result.ok ? { ok: true, value: { grant: result.value } } : result;
  };
}

/** The grant of a plain acquire's end, or the refusal thrown. */
export function grantOf(end: Final): { grant: LeaseGrant; before: number } {
  if (end.kind === "granted") return end;
  throw end.kind === "refused"
    ? end.error
    : new SponsonError("INTERNAL", "a plain acquire was answered as combined");
}

/** The Durable Object runtime's flags on an error thrown into a call (Cloudflare's error handling). */
export function flagsOf(err: unknown): { reset: boolean; overloaded: boolean } {
  if (typeof err !== "object" || err === null) return { reset: false, overloaded: false };
  const f = err as { durableObjectReset?: unknown; retryable?: unknown; overloaded?: unknown };
  // An overloaded object is not a reset: it kept its waiters and its leases, only the call failed.
  const overloaded = f.overloaded === true;
  return { overloaded, reset: !overloaded && (f.durableObjectReset === true || f.retryable === true) };
}

/** The wait before the n-th re-join (1-based), in whole ms: exponential, capped, half of it jittered. */
export function rejoinDelayMs(n: number, random: () => number): number {
  const full = Math.min(REJOIN_CAP_MS, REJOIN_BASE_MS * 2 ** (n - 1));
  return Math.floor(full / 2 + (full / 2) * random());
}

/**
 * Asks until granted, combined or refused; re-joins are bounded by count and by the wait deadline
 * (the run's, else one of `waitTimeoutMs` started now).
 */
export async function acquireLoop(
  target: LeaseTarget,
  holder: string,
  s: LeaseSettings,
  ask: Ask,
): Promise<Final> {
  const deadline = s.deadline ?? WaitDeadline.start(s.waitTimeoutMs, s.clock);
  const end = await loop(target, holder, { s, ask, deadline });
  return end.kind === "refused" && s.wait ? { ...end, error: withBudget(end.error, deadline) } : end;
}

interface Asking {
  s: LeaseSettings;
  ask: Ask;
  deadline: WaitDeadline;
}

async function loop(target: LeaseTarget, holder: string, a: Asking): Promise<Final> {
  const { s, deadline } = a;
  let rejoins = 0;
  let overloads = 0;
  for (let asks = 1; ; asks++) {
    const outcome = await attempt(target, holder, a);
    if (outcome.kind !== "rejoin") return { ...outcome, asks };
    if (outcome.why === "overloaded") {
      overloads += 1;
      if (overloads < OVERLOAD_ATTEMPTS && !(s.wait && deadline.passed()))
        await backoff(a, rejoinDelayMs(overloads, s.random));
      // A waiting caller never sleeps past its deadline: the truth there is still "overloaded".
      if (overloads >= OVERLOAD_ATTEMPTS || (s.wait && deadline.passed()))
        return { kind: "refused", error: stillOverloaded(target, overloads), asks };
      continue;
    }
    rejoins += 1;
    if (rejoins < REJOIN_ATTEMPTS && !deadline.passed()) await backoff(a, rejoinDelayMs(rejoins, s.random));
    if (rejoins >= REJOIN_ATTEMPTS || deadline.passed())
      return { kind: "refused", error: gaveUp(target, holder, asks), asks };
  }
}

/** A backoff before asking again, cut short at the deadline when the caller waits. */
function backoff({ s, deadline }: Asking, ms: number): Promise<void> {
  return s.clock.sleep(s.wait ? Math.min(ms, deadline.leftMs()) : ms);
}

async function attempt(target: LeaseTarget, holder: string, { s, ask, deadline }: Asking): Promise<Outcome> {
  // Measured before the call: the server's expiry can only be later than this plus the TTL.
  let before = s.clock.now();
  const items = s.items ? { items: s.items } : {};
  const origin = s.origin ? { origin: s.origin } : {};
  // Past the run's deadline an ask does not wait: it is a try, granted only if the lock is free.
  const waits = s.wait && !deadline.passed();
  const stopReports =
    waits && s.onWaiting
      ? reportWhileWaiting({ target, holder, clock: s.clock, deadline, onWaiting: s.onWaiting }, origin)
      : null;
  try {
    const asked = ask({
      holder,
      ttlMs: s.ttlMs,
      wait: waits,
      waitTimeoutMs: waits ? deadline.objectWaitMs() : 0,
      ...(s.lockDelayMs !== undefined ? { lockDelayMs: s.lockDelayMs } : {}),
      ...items,
      ...origin,
    });
    const waited = waits
      ? await untilDeadline(asked, { target, holder, origin, deadline, takenGraceMs: s.takenGraceMs })
      : { answered: await asked };
    stopReports?.();
    if ("refused" in waited) return { kind: "refused", error: waited.refused };
    const answered = waited.answered;
    if (!answered.ok) return { kind: "refused", error: SponsonError.fromInfo(answered.error) };
    if ("combined" in answered.value) return { kind: "combined", answer: answered.value.combined };
    const { grant } = answered.value;
    if (grant.claimBy === undefined) return { kind: "granted", grant, before };
    before = s.clock.now();
    const take = s.takeQueue ? { take: true } : {};
    const claimed = await target.claim({ holder, token: grant.token, ...items, ...take });
    if (claimed.ok) return { kind: "granted", grant: claimed.value, before };
    // Too late to claim (the window passed): the lock went on to the next waiter; queue again.
    if (claimed.error.code === "LOCK_LOST") return { kind: "rejoin", why: "lapsed", error: null };
    return { kind: "refused", error: SponsonError.fromInfo(claimed.error) };
  } catch (err) {
    stopReports?.();
    const flags = flagsOf(err);
    if (flags.overloaded) return { kind: "rejoin", why: "overloaded", error: err };
    // Only a waiting caller re-joins after a restart: one that would not wait is answered as is.
    if (s.wait && flags.reset) return { kind: "rejoin", why: "reset", error: err };
    return { kind: "refused", error: err };
  }
}

/** Still not granted after re-joining: the same answer as a wait that timed out, never a 500. */
function gaveUp(target: LeaseTarget, holder: string, attempts: number): SponsonError {
  return new SponsonError(
    "LOCK_HELD",
    `${holder} could not take ${target.key}: it re-joined ${attempts} times (the lock object restarted or the grant lapsed) without being granted`,
    { lock: target.key },
  );
}

/** Seconds a caller waits before asking again after LOCK_UNAVAILABLE: past the loop's own backoff. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 5;

/**
 * Overloaded through every ask: a retriable 503 the caller can act on, never the runtime's raw error
 * (a 500). Nothing was written: the lease was never granted (docs/design.md, "Errors").
 */
function stillOverloaded(target: LeaseTarget, asks: number): SponsonError {
  return new SponsonError(
    "LOCK_UNAVAILABLE",
    `the lock object for ${target.key} is overloaded (asked ${asks} times); nothing was written: try again in ${OVERLOADED_RETRY_AFTER_SECONDS} s`,
    { lock: target.key, retryAfterSeconds: OVERLOADED_RETRY_AFTER_SECONDS },
  );
}
