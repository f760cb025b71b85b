/**
 * What the eviction journeys share (docs/design.md, "Evicting stale scopes"): an Auth0 client's
 * web origins capped at `cap`, an environment that evicts, and ways to make a scope stale.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { SponsonError } from "../../shared/errors";
import { scopeLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { LockProvider } from "../../workers/engine/deps";
import { type LockTarget, lockStub, lockTarget } from "../../workers/locks/lock-target";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { registerConnection } from "./connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "./emulators";
import { appLockKey, freshPr } from "./engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "./plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "./repositories";
import { type TestEngineOptions, testEngine } from "./test-engine";

const DAY_MS = 24 * 60 * 60 * 1000;
export const EVICTING = JSON.stringify([{ name: "preview", staleAfterDays: 7, evictStale: true }]);

export const evictingEngine = (o: TestEngineOptions = {}) =>
  testEngine({ bindings: { SPONSON_ENVIRONMENTS: EVICTING }, ...o });

export const applyRequest = (plan: Plan, scope: string, repository: RepositoryRef = DEFAULT_REPOSITORY) => ({
  repository,
  environment: "preview",
  scope,
  plan,
  wait: true,
  waitTimeoutMs: 30_000,
});

export const destroyRequest = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});

export const origin = (scope: string) => `https://${scope}.preview.example.com`;

/** The scope's runs moved `days` into the past: idle that long. */
export async function ageRuns(scope: string, days: number, environment = "preview"): Promise<void> {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const { receipt, etag } = await store.read(scopeAddress(environment, scope));
  const at = Date.now() - days * DAY_MS;
  await store.write(
    { ...receipt, runs: receipt.runs.map((r) => ({ ...r, startedAt: at, finishedAt: at })) },
    etag,
  );
}

export async function setPullRequest(scope: string, status: "open" | "closed"): Promise<void> {
  await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
    status,
    revision: Date.now(),
    deliveryId: crypto.randomUUID(),
  });
}

/** Two new scopes, each of which has applied `plan` (its entries on the list). */
export async function twoAppliedScopes(plan: Plan): Promise<[string, string]> {
  const scopes: [string, string] = [freshPr(), freshPr()];
  for (const s of scopes)
    expect((await evictingEngine().apply(applyRequest(plan, s))).run.status).toBe("succeeded");
  return scopes;
}

/**
 * An Auth0 client whose web origins are capped at `cap`, holding `foreign` (none by default); the
 * plan adds the scope's origin.
 */
export async function cappedOrigins(name: string, cap: number, foreign: string[] = []) {
  const domain = freshAuth0Domain(name);
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: foreign } } });
  const connection = registerConnection(`auth0-${name}-${domain}`, {
    type: "auth0",
    config: { domain, clientId: TEST_M2M.clientId },
    secrets: { clientSecret: SECRET_NAME },
    capacity: { "auth0.webOrigin": cap },
  });
  const line = (id: string, url: string) => ({
    id,
    op: "auth0.webOrigin",
    connection,
    params: { client: APP_CLIENT, url },
  });
  const plan: Plan = { version: 2, lines: [line("origin", "https://{scope}.preview.example.com")] };
  const origins = async () => (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
  return { domain, plan, line, origins };
}

export async function receiptOf(scope: string, environment = "preview") {
  return (await new R2ReceiptStore(env.RECEIPTS).read(scopeAddress(environment, scope))).receipt;
}

/** Whether the preview scope's lock is free: a try to take it without waiting. */
export async function scopeLockFree(scope: string): Promise<boolean> {
  try {
    const probe = await ScopeLease.acquire(
      lockTarget(env, scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope)),
      "test-probe",
      { ttlMs: 60_000 },
    );
    await probe.release();
    return true;
  } catch (err) {
    if (err instanceof SponsonError && err.code === "LOCK_HELD") return false;
    throw err;
  }
}

/** The run's locks with every scope lock's calls passed through `wrap` (parent locks as they are). */
export function wrapScopeLocks(wrap: (target: LockTarget, scope: string) => LockTarget) {
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    parent: inner.parent.bind(inner),
    holdsScope: inner.holdsScope.bind(inner),
    scope: (repositoryId, environment, scope) => wrap(inner.scope(repositoryId, environment, scope), scope),
  });
}

/** The run's locks with every parent lock's calls passed through `wrap` (scope locks as they are). */
export function wrapParentLocks(wrap: (target: LockTarget, inner: LockProvider) => LockTarget) {
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    scope: inner.scope.bind(inner),
    holdsScope: inner.holdsScope.bind(inner),
    parent: async (identity) => wrap(await inner.parent(identity), inner),
  });
}

/** The preview scopes the application's lock names as owners of web origin `url` (sorted). */
export async function originOwners(domain: string, url: string): Promise<string[]> {
  const key = await appLockKey(domain);
  const { items } = await lockStub(env, key).ownership({ key });
  const row = items.find((i) => i.op === "auth0.webOrigin" && i.key === url);
  return (row?.owners ?? []).map((o) => o.replace(`${DEFAULT_REPOSITORY.id}/preview/`, "")).sort();
}
