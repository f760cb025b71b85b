/**
 * A provider write refused by its precondition (GCS `412 conditionNotMet`): the object changed
 * since it was read, and nothing was written. The critical section then reads the object again and
 * decides every change again from what is there now (docs/design.md, "Lease protocol", fencing),
 * never only re-applying the edits: an item found present (and joined) may be gone, one found
 * absent may have been added by someone else.
 */
import { SponsonError } from "../../shared/errors";

export class StaleState extends Error {
  constructor(readonly detail: Record<string, unknown>) {
    super("the object changed since it was read (precondition failed); nothing was written");
  }
}

/** Reads and decisions of one group before it fails CONCURRENT_MODIFICATION. */
export const MAX_DECIDE_ATTEMPTS = 8;

export function keptChanging(parent: string | null, attempts: number, detail: Record<string, unknown>) {
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `${parent ?? "the object"} kept changing (precondition failed ${attempts} times, each read and decided again); nothing was overwritten`,
    { ...detail, attempts },
  );
}
