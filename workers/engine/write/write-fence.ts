/**
 * Fencing around a provider write (docs/design.md, "Lease protocol"): the leases are checked right
 * before it (assertHeld and a round trip), and again by a round trip right after it. The parent's
 * round trip before it is the group's ownership change when that was the last call before the
 * write (`parentRenewed`): the change renewed the lease at the object. A write whose
 * lease was lost while it was in flight, or whose answer never came before the lease deadline, may
 * or may not have landed: the group fails LOCK_LOST saying so, its intents stay (the section was
 * touched), and the scope's next run or the sweep resolves them from what the provider then says.
 */
import { isSponsonError, SponsonError } from "../../../shared/errors";
import { StaleState } from "../../adapters/stale-state";
import type { Lease } from "../../locks/lease";

export interface FencedLeases {
  /** The run's scope lease; null for a write no scope makes (an admin's orphan removal). */
  scope: Lease | null;
  parent: Lease | null;
  checkAfter: boolean;
  abandoned: Set<string>;
  /**
   * The parent lease was renewed at the object by the group's ownership change, with no other
   * await between it and this write (fault hooks aside, which are tests' only): that call was the
   * round-trip check, so only the local one is left to make.
   */
  parentRenewed?: boolean;
  /**
   * A call at the parent lock, accepted only with the live token, follows the write anyway (the
   * leaves, a combining holder's report): made through `checkedAfterWrite`, it is the parent's
   * check after the write.
   */
  parentCheckedAfter?: boolean;
}

export async function fencedWrite(
  leases: FencedLeases,
  what: string,
  send: () => Promise<void>,
): Promise<void> {
  leases.scope?.assertHeld();
  if (leases.parentRenewed) leases.parent?.assertHeld();
  else await leases.parent?.check();
  try {
    await send();
  } catch (err) {
    // A precondition refusal wrote nothing; a provider's own answer says what happened. No
    // answer at all (the lease ran out, the request timed out, the connection broke) says nothing.
    if (err instanceof StaleState || !unanswered(err)) throw err;
    throw unknownOutcome(leases, what, err);
  }
  if (!leases.checkAfter) return;
  try {
    if (!leases.parentCheckedAfter) await leases.parent?.check();
    await leases.scope?.check();
  } catch (err) {
    throw unknownOutcome(leases, what, err);
  }
}

/**
 * A call made after a write while the parent's check after it is still to come
 * (FencedLeases.parentCheckedAfter). `parentFenced`: the call is the token-checked parent call
 * standing for that check. Accepted, the lease was live when it arrived, so it was held all
 * through the write: tokens never come back once lost. Refused (LOCK_LOST, also the local
 * deadline), the write's outcome is unknown, as when the check fails. Any other failure (the
 * object not reached, a refusal that says nothing of the lease, or a call that is not the
 * parent's, like the scope's check before the leaves) makes the check it stands for, and stands
 * only if the lease is still held — what a separate check before it would have given.
 */
export async function checkedAfterWrite<T>(
  leases: FencedLeases,
  what: string,
  call: () => Promise<T>,
  parentFenced: boolean,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (parentFenced && isSponsonError(err) && err.code === "LOCK_LOST")
      throw unknownOutcome(leases, what, err);
    try {
      await leases.parent?.check();
    } catch (lost) {
      throw unknownOutcome(leases, what, lost);
    }
    throw err;
  }
}

/**
 * No answer, or one that does not say whether the write landed: a precondition refusing what may
 * be the write's own earlier, unanswered attempt (outcome "unknown", adapters/http/provider-request.ts).
 */
function unanswered(err: unknown): boolean {
  if (!isSponsonError(err)) return false;
  if (err.code === "LOCK_LOST") return true;
  const detail = err.detail as { status?: unknown; outcome?: unknown } | undefined;
  return err.code === "PROVIDER_ERROR" && (detail?.status === null || detail?.outcome === "unknown");
}

/**
 * The parent lease is abandoned, not released: a write that may still land must be followed by
 * the lock-delay of an expiry before anyone else reads the object.
 */
function unknownOutcome(
  leases: { parent: Lease | null; abandoned: Set<string> },
  what: string,
  cause: unknown,
): SponsonError {
  if (leases.parent) {
    leases.parent.abandon("a provider write under it has an unknown outcome");
    leases.abandoned.add(what);
  }
  return unknown(what, cause);
}

function unknown(what: string, cause: unknown): SponsonError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SponsonError(
    "LOCK_LOST",
    `${what}: the lease was lost around the provider write, so the write may have landed (outcome unknown); its intents stay for recovery (${reason})`,
    { outcome: "unknown" },
  );
}
