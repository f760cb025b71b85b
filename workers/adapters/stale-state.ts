/**
 * A provider request refused because the object changed since it was read (GCS `412
 * conditionNotMet`; Clerk refusing a URL someone else created meanwhile as a duplicate): that
 * request wrote nothing. The critical section then reads the object again and decides every
 * change again from what is there now (docs/design.md, "Lease protocol", fencing), never only
 * re-applying the edits: an item found present (and joined) may be gone, one found absent may have
 * been added by someone else. Where a group's send is several requests, the engine says which of
 * them were written before it (engine/write/provider-write.ts, PartlySent): only the rest is
 * decided again.
 */
import { SponsonError } from "../../shared/errors";

export class StaleState extends Error {
  constructor(readonly detail: Record<string, unknown>) {
    super("the object changed since it was read (precondition failed); nothing was written");
  }
}

/** Reads and decisions of one group before it fails CONCURRENT_MODIFICATION. */
export const MAX_DECIDE_ATTEMPTS = 8;

/**
 * `written`: keys a send of several requests wrote before a refusal. They stay the run's (its
 * intents and claims stand), so its rollback or a later recovery removes them.
 */
export function keptChanging(
  parent: string | null,
  attempts: number,
  detail: Record<string, unknown>,
  written: readonly string[] = [],
) {
  const kept =
    written.length === 0
      ? ""
      : `; ${written.join(", ")} written before a refusal stay this run's, for its rollback or a later recovery to remove`;
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `${parent ?? "the object"} kept changing (its write refused ${attempts} times as made on a stale read, each time read and decided again); nothing was overwritten${kept}`,
    { ...detail, attempts, ...(written.length > 0 ? { written } : {}) },
  );
}
