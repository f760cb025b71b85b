import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import type { ErrorInfo } from "../../shared/errors";
import { LOCK_DELAY_MS } from "../../shared/lease-defaults";
import { type LockTarget, lockStub } from "../../workers/locks/lock-target";

let counter = 0;
/** A fresh lock key per test: storage is shared across tests in one file. */
export function freshScopeKey(prefix = "t"): string {
  counter += 1;
  return `scope:186853002/preview/branch-${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

export function stub(key: string) {
  return lockStub(env, key);
}

/** The raw Durable Object stub, for the vitest plugin's runInDurableObject and runDurableObjectAlarm. */
export function rawStub(key: string) {
  return env.LEASE_LOCK.get(env.LEASE_LOCK.idFromName(key));
}

/**
 * Moves the live lease's expiry into the past, as if its TTL had run out, without running the
 * alarm: the way tests let time pass for an object without sleeping.
 */
export async function expireLeaseNow(key: string): Promise<void> {
  // Long enough ago that the lock-delay after it has passed too (lease-rules.ts quietUntil).
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.storage.sql.exec("UPDATE lease SET expires_at = ? WHERE id = 1", Date.now() - LOCK_DELAY_MS - 1);
  });
}

/** Expires the live lease just now: its lock-delay has only begun. */
export async function expireLeaseJustNow(key: string): Promise<void> {
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.storage.sql.exec("UPDATE lease SET expires_at = ? WHERE id = 1", Date.now() - 1);
  });
}

/** Ends a lock-delay now, as if its time had passed (the live row's expiry and the stored one). */
export async function endLockDelay(key: string): Promise<void> {
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    const past = Date.now() - LOCK_DELAY_MS - 1;
    state.storage.sql.exec(
      "UPDATE lease SET expires_at = ? WHERE id = 1 AND expires_at <= ?",
      past,
      Date.now(),
    );
    state.storage.sql.exec("UPDATE meta SET v = ? WHERE k = 'quiet_until'", String(past));
  });
}

/** Sets the live lease's expiry to `at` (object time), as if part of its TTL had passed. */
export async function setLeaseExpiry(key: string, at: number): Promise<void> {
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.storage.sql.exec("UPDATE lease SET expires_at = ? WHERE id = 1", at);
  });
}

/** The alarm the object has armed, or null. */
export async function armedAlarm(key: string): Promise<number | null> {
  return runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => state.storage.getAlarm());
}

/** A value kept in the object's meta table (docs/storage.md), or null. */
export async function metaValue(key: string, name: string): Promise<string | null> {
  return runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    const row = state.storage.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", name).toArray()[0];
    return row ? row.v : null;
  });
}

/** Rows in the object's history table: the bound applies to storage, not only to what read() shows. */
export async function historyRowCount(key: string): Promise<number> {
  return runInDurableObject(
    rawStub(key),
    async (_instance: LeaseLock, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM history").one().n,
  );
}

/** Unwraps an RPC Result in a test, failing with the error's message when it is not ok. */
export function granted<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(`expected a grant, got ${result.error.message}`);
  return result.value;
}

/** The error of a refused RPC Result, failing the test when the call succeeded. */
export function refused(result: { ok: boolean; error?: ErrorInfo }): ErrorInfo {
  if (result.ok || !result.error) throw new Error("expected a refusal, got a grant");
  return result.error;
}

/** A target that also carries a test's own state (counts, scripted replacements), read and set as its properties. */
export function withState<S extends object>(target: LockTarget, state: S): LockTarget & S {
  return new Proxy(target, {
    get: (t, prop) => (prop in state ? Reflect.get(state, prop) : Reflect.get(t, prop)),
    set: (_, prop, value) => Reflect.set(state, prop, value),
  }) as LockTarget & S;
}

/** Resolves once `count` runs wait on the lock (a read each millisecond; bounded, never a race). */
export async function untilQueued(key: string, count: number): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if ((await stub(key).read({ key })).waiters.length >= count) return;
    await scheduler.wait(1);
  }
  throw new Error(`no ${count} waiter(s) on ${key}`);
}
