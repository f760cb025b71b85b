/** Helpers for engine tests: the parent lock of the test application, receipts, emulator stats. */
import { env } from "cloudflare:workers";
import type { ExpectStatic } from "vitest";
import { parentLockKey, scopeLockKey } from "../../shared/lock-keys";
import type { Intent } from "../../shared/schemas/receipt";
import { SecretRegistry } from "../../shared/secrets";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { emulatorStub } from "./emulators";
import { APP_CLIENT } from "./plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "./repositories";

export function appIdentity(domain: string, client = APP_CLIENT): string {
  return `auth0:${domain}:client:${client}`;
}

export async function appLockKey(domain: string, client = APP_CLIENT): Promise<string> {
  return parentLockKey(appIdentity(domain, client), new SecretRegistry());
}

/** Holds the application's parent lock as another run would, until the returned release is called. */
export async function holdAppLock(domain: string, holder = "run-other", client = APP_CLIENT) {
  const key = await appLockKey(domain, client);
  const grant = await lockTarget(env, key, appIdentity(domain, client)).acquire({
    holder,
    ttlMs: 60_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!grant.ok) throw new Error(grant.error.message);
  return {
    key,
    release: () => lockStub(env, key).release({ key, holder, token: grant.value.token }),
  };
}

/** Resolves once `count` runs wait in the lock object's queue (reads the object; no sleeps). */
export async function untilWaiters(key: string, count: number): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    const state = await lockStub(env, key).read({ key });
    if (state.waiters.length >= count) return;
    await scheduler.wait(1);
  }
  throw new Error(`no ${count} waiter(s) on ${key}`);
}

/** The application's lock and each scope's lock are free, with nobody waiting: a settled world. */
export async function expectLocksFree(expect: ExpectStatic, domain: string, scopes: string[]): Promise<void> {
  const keys = [
    await appLockKey(domain),
    ...scopes.map((s) => scopeLockKey(DEFAULT_REPOSITORY.id, "preview", s)),
  ];
  for (const key of keys) {
    const state = await lockStub(env, key).read({ key });
    expect({ key, held: state.held, waiters: state.waiters }).toEqual({ key, held: false, waiters: [] });
  }
}

export function receipt(environment: string, scope: string) {
  return new R2ReceiptStore(env.RECEIPTS).read(scopeAddress(environment, scope)).then((r) => r.receipt);
}

/** Every durable intent of a scope: the receipt's, their one home (docs/design.md "Writing one object's items"). */
export async function durableIntents(environment: string, scope: string): Promise<Intent[]> {
  return (await receipt(environment, scope)).intents;
}

export async function providerWrites(domain: string): Promise<number> {
  return (await emulatorStub(domain).stats()).writes;
}

let n = 0;
/** A pull-request scope no other test in the file uses. */
export function freshPr(): string {
  n += 1;
  return `pr-${Math.floor(Math.random() * 1e5) * 1000 + n}`;
}
