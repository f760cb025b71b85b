/**
 * The sweep's report of lists near their cap (docs/design.md, "Fill levels"; docs/operations.md,
 * "What each kind means, and how to recover": `list-near-capacity`): every parent lock in the
 * owned-object index is asked for its lists above 80 % of their cap, as its last write left them
 * (durable-objects/fill-levels.ts). Each is logged every sweep; operators are told once per crossing:
 * the lock claims the notice in the step that answers, a failed send gives the claim back, and a list
 * that drops to 80 % or below may tell again. A lock that cannot be asked is named and skipped: the
 * locks after it are still asked and told.
 */
import type { Env } from "../../shared/env";
import type { LeaseLockApi } from "../../shared/rpc/lease-lock";
import { listId, type NearCapacity } from "../../shared/schemas/fill-level";
import { SecretRegistry } from "../../shared/secrets";
import { ownedObjectIndex } from "../lock-views/owned-objects";
import { lockStub } from "../locks/lock-target";
import { notify } from "../notify/notify";
import { secretsFromEnv } from "../wiring/wire";

/** A lock the sweep could not ask, or could not settle its claims with, and why. */
export interface LockFailure {
  lock: string;
  identity: string;
  /** Redacted: an error's text may hold a secret. */
  error: string;
}

export interface NearCapacityReport {
  lists: NearCapacity[];
  /** Locks whose lists could not be read this sweep: the next sweep asks again. */
  unreadable: LockFailure[];
  /** Locks whose sent or failed notices could not be confirmed or given back: their claims lapse after a day. */
  claimsLeft: LockFailure[];
}

export async function listsNearCapacity(env: Env, now: number): Promise<NearCapacityReport> {
  // The index's listing reads no secret: an empty registry is enough.
  const objects = await ownedObjectIndex(env, new SecretRegistry()).list();
  const report: NearCapacityReport = { lists: [], unreadable: [], claimsLeft: [] };
  const failure = (object: { key: string; identity: string }, err: unknown): LockFailure => ({
    lock: object.key,
    identity: object.identity,
    error: secretsFromEnv(env).redact(err instanceof Error ? err.message : String(err)),
  });
  // One lock at a time, each failure kept to its lock: one broken object never hides the others.
  for (const object of objects) {
    const stub = lockStub(env, object.key);
    let lists: Awaited<ReturnType<LeaseLockApi["nearCapacity"]>>;
    try {
      lists = await stub.nearCapacity({ key: object.key, now });
    } catch (err) {
      report.unreadable.push(failure(object, err));
      continue;
    }
    const found = lists.map(
      (list): NearCapacity => ({ lock: object.key, identity: object.identity, ...list }),
    );
    report.lists.push(...found);
    const errors = await tellAndSettle(env, { key: object.key, stub }, found, now);
    if (errors.length > 0) report.claimsLeft.push(failure(object, errors[0]));
  }
  return report;
}

/**
 * Sends each claimed notice of one lock, then confirms the sent ones and gives the others back;
 * the two calls are independent, so one failing does not skip the other. Answers their errors.
 */
async function tellAndSettle(
  env: Env,
  { key, stub }: { key: string; stub: LeaseLockApi },
  found: NearCapacity[],
  now: number,
): Promise<unknown[]> {
  const unsent: string[] = [];
  const told: string[] = [];
  for (const near of found) {
    // notify never throws: a send that threw comes back "failed", and its claim is given back.
    if (near.notify) (sent(await tellOperators(env, near, now)) ? told : unsent).push(listId(near));
  }
  const errors: unknown[] = [];
  if (unsent.length > 0) await stub.unclaimNearCapacity({ key, ops: unsent }).catch((e) => errors.push(e));
  // Until confirmed, a claim only holds off other sweeps for a day: one whose sweep died lapses.
  if (told.length > 0) await stub.confirmNearCapacity({ key, ops: told }).catch((e) => errors.push(e));
  return errors;
}

const sent = (outcome: string) => outcome === "queued" || outcome === "off";

function tellOperators(env: Env, near: NearCapacity, now: number) {
  return notify(env, {
    // One per crossing: the claim's time tells a new crossing from a repeat delivery.
    id: `list-near-capacity:${near.lock}:${listId(near)}:${now}`,
    kind: "list-near-capacity",
    at: now,
    summary: `${near.identity ?? near.lock}: ${near.op}'s list${near.list ? ` (${near.list})` : ""} holds ${near.entries} of at most ${near.cap} entries`,
    subject: {
      lock: near.lock,
      ...(near.identity ? { identity: near.identity } : {}),
      op: near.op,
      ...(near.list ? { list: near.list } : {}),
      cap: near.cap,
      entries: near.entries,
      seenAt: near.at,
    },
  });
}
