/**
 * An admin's force-release (the API's DELETE /v1/locks/{key} and the dashboard's form), audited in
 * R2 (workers/audit/audit-trail.ts). The lock object decides and records the transition in its own
 * history; the holder and token it released are read from that history entry (the object's
 * answer is the same `at`), so the record names exactly what was taken away.
 */
import type { Env } from "../../shared/env";
import { unwrap } from "../../shared/errors";
import type { LockState, ReleaseOutcome } from "../../shared/schemas/lock";
import { recordForceRelease } from "../audit/audit-trail";
import { lockStub, readLock } from "./lock-target";

export async function auditedForceRelease(
  env: Env,
  request: { key: string; reason: string; actor: string },
): Promise<{ outcome: ReleaseOutcome; lock: LockState }> {
  const outcome = unwrap(await lockStub(env, request.key).forceRelease(request));
  const lock = await readLock(env, request.key);
  const entry = outcome.released
    ? lock.history.findLast((h) => h.transition === "force-released" && h.at === outcome.at)
    : undefined;
  await recordForceRelease(env, {
    key: request.key,
    actor: request.actor,
    reason: request.reason,
    holder: entry?.holder ?? null,
    token: entry?.token ?? null,
    released: outcome.released,
    at: outcome.at,
  });
  return { outcome, lock };
}
