/**
 * The sweep's report of lists near their cap (issue 32, item 2; docs/operations.md,
 * "list-near-capacity"): every parent lock in the owned-object index is asked for its lists above
 * 80 % of their cap, as its last write left them (durable-objects/fill-levels.ts). Each is logged
 * every sweep; operators are told once per crossing: the lock claims the notice in the step that
 * answers, a failed send gives the claim back, and a list that drops to 80 % or below may tell again.
 */
import type { Env } from "../../shared/env";
import { listId, type NearCapacity } from "../../shared/schemas/fill-level";
import { SecretRegistry } from "../../shared/secrets";
import { ownedObjectIndex } from "../lock-views/owned-objects";
import { lockStub } from "../locks/lock-target";
import { notify } from "../notify/notify";

export async function listsNearCapacity(env: Env, now: number): Promise<NearCapacity[]> {
  // The index's listing reads no secret: an empty registry is enough.
  const objects = await ownedObjectIndex(env, new SecretRegistry()).list();
  const found: NearCapacity[] = [];
  for (const { key, identity } of objects) {
    const stub = lockStub(env, key);
    const lists = await stub.nearCapacity({ key, now });
    const unsent: string[] = [];
    const told: string[] = [];
    for (const list of lists) {
      const near: NearCapacity = { lock: key, identity, ...list };
      found.push(near);
      if (list.notify) (sent(await tellOperators(env, near, now)) ? told : unsent).push(listId(list));
    }
    if (unsent.length > 0) await stub.unclaimNearCapacity({ key, ops: unsent });
    // Until confirmed, a claim only holds off other sweeps for a day: one whose sweep died lapses.
    if (told.length > 0) await stub.confirmNearCapacity({ key, ops: told });
  }
  return found;
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
