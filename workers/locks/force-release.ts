/**
 * An admin's force-release (the API's DELETE /v1/locks/{key} and the dashboard's form), audited in
 * R2 before it acts (docs/design.md, "Audit before acting"; workers/audit/audit-intent.ts): no
 * intent written, no release. The lock object decides and records the transition in its own
 * history; the holder and token it released are read from that history entry (the object's
 * answer is the same `at`), so the completed record names exactly what was taken away. Until the
 * outcome is known the record names no holder and no `released` flag: an intent never completed
 * must not read as "was not held" (docs/design.md, "Audit before acting").
 */
import type { Env } from "../../shared/env";
import { unwrap } from "../../shared/errors";
import type { LockState, ReleaseOutcome } from "../../shared/schemas/lock";
import { outcomeOfError, writeCompletion, writeIntent } from "../audit/audit-intent";
import { type ForceReleaseAudit, forceReleaseAuditKey } from "../audit/audit-trail";
import { lockStub, readLock } from "./lock-target";

export async function auditedForceRelease(
  env: Env,
  request: { key: string; reason: string; actor: string },
): Promise<{ outcome: ReleaseOutcome; lock?: LockState }> {
  const id = crypto.randomUUID();
  const startedAt = Date.now();
  const auditKey = forceReleaseAuditKey(startedAt, id);
  const intent: ForceReleaseAudit = {
    key: request.key,
    actor: request.actor,
    reason: request.reason,
    at: startedAt,
    id,
    startedAt,
    status: "started",
  };
  await writeIntent(env.RECEIPTS, auditKey, intent);
  let outcome: ReleaseOutcome;
  try {
    outcome = unwrap(await lockStub(env, request.key).forceRelease(request));
  } catch (err) {
    await writeCompletion(env.RECEIPTS, auditKey, { ...intent, ...outcomeOfError(err), at: Date.now() });
    throw err;
  }
  // The release has happened: a failed read-back must neither lose its completion nor answer an
  // error (a retry would release again under a second record); the holder is then not named.
  const lock = await readLock(env, request.key).catch((err: unknown) => {
    console.error(
      JSON.stringify({
        event: "force-release-readback-failed",
        key: request.key,
        error: err instanceof Error ? err.name : "unknown",
      }),
    );
    return undefined;
  });
  const entry =
    outcome.released && lock !== undefined
      ? lock.history.findLast((h) => endedAs(outcome).includes(h.transition) && h.at === outcome.at)
      : undefined;
  const named = !outcome.released ? { holder: null, token: null } : entry === undefined ? {} : entry;
  await writeCompletion(env.RECEIPTS, auditKey, {
    ...intent,
    ...(named.holder === undefined ? {} : { holder: named.holder, token: named.token ?? null }),
    released: outcome.released,
    at: outcome.at,
    status: "done",
  } satisfies ForceReleaseAudit);
  return lock === undefined ? { outcome } : { outcome, lock };
}

/**
 * The history entry a force-release left: its own, or the end of a lease already past its expiry
 * (`expired`; `claim-lapsed` for a grant never claimed, answered `released`: no lock-delay follows).
 */
function endedAs(outcome: ReleaseOutcome): readonly string[] {
  return outcome.reason === "released-expired" ? ["expired"] : ["force-released", "claim-lapsed"];
}
