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
 * What a send of several requests wrote before a refusal, by whose it is (the engine's
 * PartlySent): `written`, this run's own creations, stay its own (their intents and claims stand),
 * so its rollback or a later recovery removes them; `removed`, its own removals, leave their
 * ownership to that recovery; `writtenForOthers`, queued runs' changes a combining holder carried,
 * are theirs to record or resolve.
 */
export interface WrittenBeforeRefusal {
  written: readonly string[];
  removed: readonly string[];
  writtenForOthers: readonly string[];
}

const NOTHING_WRITTEN: WrittenBeforeRefusal = { written: [], removed: [], writtenForOthers: [] };

export function keptChanging(
  parent: string | null,
  attempts: number,
  detail: Record<string, unknown>,
  { written, removed, writtenForOthers }: WrittenBeforeRefusal = NOTHING_WRITTEN,
) {
  const said = [
    written.length > 0
      ? `${written.join(", ")} written before a refusal stay this run's, for its rollback or a later recovery to remove`
      : "",
    removed.length > 0
      ? `${removed.join(", ")} removed before a refusal (the ownership given up is left to recovery)`
      : "",
    writtenForOthers.length > 0
      ? `${writtenForOthers.join(", ")} written for queued runs before a refusal (theirs to record or resolve)`
      : "",
  ].filter((part) => part !== "");
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `${parent ?? "the object"} kept changing (its write refused ${attempts} times as made on a stale read, each time read and decided again); nothing was overwritten${said.map((part) => `; ${part}`).join("")}`,
    {
      ...detail,
      attempts,
      ...(written.length > 0 ? { written } : {}),
      ...(removed.length > 0 ? { removed } : {}),
      ...(writtenForOthers.length > 0 ? { writtenForOthers } : {}),
    },
  );
}
