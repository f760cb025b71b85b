/**
 * Fencing around a provider write (docs/design.md, "Lease protocol"): the leases are checked right
 * before it (assertHeld and a round trip), and again by a round trip right after it. A write whose
 * lease was lost while it was in flight, or whose answer never came before the lease deadline, may
 * or may not have landed: the group fails LOCK_LOST saying so, its intents stay (the section was
 * touched), and the scope's next run or the sweep resolves them from what the provider then says.
 */
import { isSponsonError, SponsonError } from "../../shared/errors";
import type { Lease } from "../locks/lease";
import { StaleState } from "./stale-state";

export async function fencedWrite(
  leases: { scope: Lease; parent: Lease | null; checkAfter: boolean },
  what: string,
  send: () => Promise<void>,
): Promise<void> {
  leases.scope.assertHeld();
  await leases.parent?.check();
  try {
    await send();
  } catch (err) {
    // A precondition refusal wrote nothing; a provider's own answer says what happened.
    if (err instanceof StaleState || !isSponsonError(err) || err.code !== "LOCK_LOST") throw err;
    throw unknownOutcome(what, err);
  }
  if (!leases.checkAfter) return;
  try {
    await leases.parent?.check();
    await leases.scope.check();
  } catch (err) {
    throw unknownOutcome(what, err);
  }
}

function unknownOutcome(what: string, cause: unknown): SponsonError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SponsonError(
    "LOCK_LOST",
    `${what}: the lease was lost around the provider write, so the write may have landed (outcome unknown); its intents stay for recovery (${reason})`,
    { outcome: "unknown" },
  );
}
