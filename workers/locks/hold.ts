/**
 * An admin's hold, set or lifted (the API's POST and DELETE /v1/locks/{key}/hold and the
 * dashboard's forms), audited in R2 (workers/audit/audit-trail.ts). The lock object decides and
 * records it in its own history; its expiry is recorded by the lock itself (durable-objects/lock-holds.ts).
 */
import type { Env } from "../../shared/env";
import { unwrap } from "../../shared/errors";
import type { HoldOutcome } from "../../shared/schemas/hold";
import type { LockState } from "../../shared/schemas/lock";
import { recordHold } from "../audit/audit-trail";
import { lockStub, readLock } from "./lock-target";

export async function auditedHold(
  env: Env,
  request: { key: string; reason: string; ttlSeconds: number; actor: string },
): Promise<HoldOutcome & { lock: LockState }> {
  const { key, reason, actor } = request;
  const outcome = unwrap(
    await lockStub(env, key).hold({ key, reason, by: actor, ttlMs: request.ttlSeconds * 1000 }),
  );
  await recordHold(env, {
    key,
    action: "set",
    actor,
    reason,
    hold: outcome.hold,
    replaced: outcome.previous,
    at: outcome.at,
  });
  return { ...outcome, lock: await readLock(env, key) };
}

export async function auditedUnhold(
  env: Env,
  request: { key: string; actor: string },
): Promise<HoldOutcome & { lock: LockState }> {
  const outcome = unwrap(await lockStub(env, request.key).unhold(request));
  const lifted = outcome.previous;
  await recordHold(env, {
    key: request.key,
    action: "lift",
    actor: request.actor,
    reason: lifted?.reason ?? "",
    hold: lifted,
    at: outcome.at,
  });
  return { ...outcome, lock: await readLock(env, request.key) };
}
