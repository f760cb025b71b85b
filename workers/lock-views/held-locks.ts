/**
 * `GET /v1/locks`: the R2 index names candidate locks, each lock's own object says whether it is
 * held. A stale entry (an index delete that was lost) is filtered out here and repaired by the
 * object's own read, so the listing never shows a free lock as held.
 */
import type { Env } from "../../shared/env";
import { HELD_INDEX_PREFIX, lockKeyFromIndex } from "../../shared/lock-index";
import type { LockState } from "../../shared/schemas/lock";
import { readLock } from "../locks/lock-target";

const LIST_PAGE = 1000;

export async function listHeldLocks(env: Env): Promise<LockState[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.RECEIPTS.list({ prefix: HELD_INDEX_PREFIX, limit: LIST_PAGE, cursor });
    for (const object of page.objects) keys.push(lockKeyFromIndex(object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  const states = await Promise.all(keys.map((key) => readLock(env, key)));
  // A lock on hold is listed even while nobody holds its lease (docs/design.md, "Lease protocol: holds").
  return states
    .filter((s) => s.held || s.hold !== undefined)
    .sort((a, b) => (a.since ?? a.hold?.since ?? 0) - (b.since ?? b.hold?.since ?? 0));
}
