/**
 * Write combining: runs queued for one application hand the lock object their changes; the run
 * that holds the lock writes them with its own in one provider write, and each waiter records its
 * ledger without taking the lock. Every failure case ends with nothing lost, nothing written twice,
 * no orphan and no lock held.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import type { FaultHook, LockProvider } from "../../workers/engine/deps";
import type { Engine } from "../../workers/engine/engine";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { lockStub } from "../../workers/locks/lock-target";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { auth0Client, configureHost, freshAuth0Domain } from "../helpers/emulators";
import {
  appLockKey,
  durableIntents,
  expectLocksFree,
  freshPr,
  holdAppLock,
  providerWrites,
  receipt,
  untilWaiters,
} from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const entries = (scope: string) => {
  const host = `https://${scope}.preview.example.com`;
  return { callbacks: [`${host}/callback`], allowed_logout_urls: [`${host}/`], web_origins: [host] };
};

function engine(overrides: EngineOverrides = {}) {
  return testEngine(overrides);
}

function apply(e: Engine, scope: string, plan: Plan): Promise<RunResult> {
  return e.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
}

/**
 * Two runs queued in a known order behind a lock held by someone else, then the lock let go: the
 * first in line becomes the holder, the second waits with its changes.
 */
async function queuedPair(
  holderEngine: () => Engine,
  waiterEngine: () => Engine,
  beforeRelease: (world: { domain: string; a: string; b: string }) => Promise<void> = async () => {},
) {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  // The plan registers the tenant's connection, which an engine reads when it is made.
  const plan = previewPlan(domain);
  const [holder, waiter] = [holderEngine(), waiterEngine()];
  const [a, b] = [freshPr(), freshPr()];
  const key = await appLockKey(domain);
  const held = await holdAppLock(domain);
  const first = apply(holder, a, plan);
  await untilWaiters(key, 1);
  const second = apply(waiter, b, plan);
  await untilWaiters(key, 2);
  const writesBefore = await providerWrites(domain);
  await beforeRelease({ domain, a, b });
  await held.release();
  return { domain, plan, a, b, key, first, second, writesBefore };
}

async function settled(domain: string, scopes: string[]) {
  for (const scope of scopes) {
    expect(await durableIntents("preview", scope), `intents left in ${scope}`).toEqual([]);
  }
  await expectLocksFree(expect, domain, scopes);
}

async function owners(domain: string, key: string) {
  const lock = await appLockKey(domain);
  const record = await lockStub(env, lock).ownership({ key: lock });
  return record.items.find((i) => i.op === "auth0.callbackUrl" && i.key === key)?.owners ?? [];
}

describe("write combining", () => {
  it("the holder's one write carries the waiter's changes; the waiter records them without the lock", async () => {
    const { domain, a, b, key, first, second, writesBefore } = await queuedPair(engine, engine);
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra.run.status).toBe("succeeded");
    expect(rb.run.status).toBe("succeeded");
    expect(await providerWrites(domain)).toBe(writesBefore + 1);
    expect(rb.lines.map((l) => [l.id, l.result, l.writtenBy])).toEqual([
      ["callback", "created", ra.run.id],
      ["logout", "created", ra.run.id],
      ["origin", "created", ra.run.id],
    ]);
    expect(ra.lines.every((l) => l.writtenBy === undefined)).toBe(true);
    const client = await auth0Client(domain, APP_CLIENT);
    expect(client?.callbacks).toEqual([...entries(a).callbacks, ...entries(b).callbacks]);
    expect(client?.web_origins).toEqual([...entries(a).web_origins, ...entries(b).web_origins]);
    const stored = await receipt("preview", b);
    expect(stored.ledger.map((e) => e.line).sort()).toEqual(["callback", "logout", "origin"]);
    expect(stored.runs.at(-1)?.combinedBy).toEqual([ra.run.id]);
    expect(await owners(domain, entries(b).callbacks[0] as string)).toEqual([
      `${DEFAULT_REPOSITORY.id}/preview/${b}`,
    ]);
    // The waiter was answered, never granted: the lock's history says so.
    const history = (await lockStub(env, key).read({ key })).history;
    expect(history.filter((h) => h.holder === rb.run.id).map((h) => h.transition)).toEqual(["combined"]);
    await settled(domain, [a, b]);
  });

  it("turned off for the environment: each run writes its own (two writes), nothing says another wrote it", async () => {
    const off = () => testEngine({ bindings: { SPONSON_WRITE_COMBINING: '{"preview": false}' } });
    const { domain, a, b, first, second, writesBefore } = await queuedPair(off, off);
    const [ra, rb] = await Promise.all([first, second]);
    expect([ra.run.status, rb.run.status]).toEqual(["succeeded", "succeeded"]);
    expect(await providerWrites(domain)).toBe(writesBefore + 2);
    expect(rb.lines.every((l) => l.result === "created" && l.writtenBy === undefined)).toBe(true);
    await settled(domain, [a, b]);
  });

  it("the holder dies after the combined write, before reporting: the waiter is granted, finds its entries and keeps them; recovery undoes the holder's", async () => {
    const crash: FaultHook = (point) => {
      if (point === "after-write") throw new SimulatedCrash(point);
    };
    const { domain, a, b, first, second, writesBefore } = await queuedPair(
      () => engine({ faults: crash }),
      engine,
    );
    await expect(first).rejects.toThrow(SimulatedCrash);
    const rb = await second;
    expect(rb.run.status).toBe("succeeded");
    // Written once, by the holder's write; the waiter found its entries there and wrote nothing.
    expect(await providerWrites(domain)).toBe(writesBefore + 1);
    expect(rb.lines.map((l) => [l.id, l.result, l.writtenBy])).toEqual([
      ["callback", "created", undefined],
      ["logout", "created", undefined],
      ["origin", "created", undefined],
    ]);
    const recovered = await engine().recover({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: a,
    });
    expect(recovered.warnings.join(" ")).toContain("recovered 3 intent");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual(entries(b).callbacks);
    await settled(domain, [a, b]);
  });

  it("the holder's lease is lost before its write: the waiter's changes come back to it and it writes them itself", async () => {
    let key = "";
    // The holder's lease is lost once. "after-intent" fires once per change the holder writes
    // itself (three here): force-releasing on each would also end the grant the first release
    // hands the waiter, before it claims it. The waiter would then re-join (after its backoff),
    // and whoever holds the lock next may take its changes and write them — the holder's own
    // rollback, under a fresh lease: a true `writtenBy`, but not the case this test is about.
    let lost = false;
    const lose: FaultHook = async (point) => {
      if (point !== "after-intent" || lost) return;
      lost = true;
      await lockStub(env, key).forceRelease({ key, reason: "test: lease lost", actor: "admin" });
    };
    const pair = await queuedPair(() => engine({ faults: lose }), engine);
    key = pair.key;
    const [ra, rb] = await Promise.all([pair.first, pair.second]);
    expect(ra.run.status).toBe("failed");
    expect(ra.run.error?.code).toBe("LOCK_LOST");
    expect(rb.run.status).toBe("succeeded");
    expect(rb.lines.every((l) => l.result === "created" && l.writtenBy === undefined)).toBe(true);
    // The waiter was granted the lock the lost lease left (the holder's late report was refused):
    // nobody answered it as written for.
    const history = (await lockStub(env, key).read({ key })).history;
    const waiterSteps = history.filter((h) => h.holder === rb.run.id).map((h) => h.transition);
    expect(waiterSteps).toContain("claimed");
    expect(waiterSteps).not.toContain("combined");
    const client = await auth0Client(pair.domain, APP_CLIENT);
    expect(client?.callbacks).toEqual(entries(pair.b).callbacks);
    expect(pair.writesBefore + 1).toBe(await providerWrites(pair.domain));
    await settled(pair.domain, [pair.a, pair.b]);
  });

  it("the provider refuses the combined write: the waiter's changes go back, the holder writes its own alone, the waiter its own", async () => {
    // Armed while both wait: the holder's combined PATCH is refused once.
    const refuseOnce = ({ domain }: { domain: string }) =>
      configureHost(domain, { failures: [{ status: 400, count: 1, on: "write" }] });
    const { domain, a, b, first, second } = await queuedPair(engine, engine, refuseOnce);
    const [ra, rb] = await Promise.all([first, second]);
    await configureHost(domain, {});
    expect([ra.run.status, rb.run.status]).toEqual(["succeeded", "succeeded"]);
    expect(rb.lines.every((l) => l.writtenBy === undefined)).toBe(true);
    const client = await auth0Client(domain, APP_CLIENT);
    expect(client?.callbacks).toEqual([...entries(a).callbacks, ...entries(b).callbacks]);
    await settled(domain, [a, b]);
  });

  it("a waiter cancelled after its change was written (it dies on the answer): recovery takes its entries away, the holder's stay", async () => {
    const die: FaultHook = (point) => {
      if (point === "after-answer") throw new SimulatedCrash(point);
    };
    const { domain, a, b, first, second } = await queuedPair(engine, () => engine({ faults: die }));
    const [ra, died] = await Promise.all([first, second.catch((err: unknown) => err)]);
    expect(died).toBeInstanceOf(SimulatedCrash);
    expect(ra.run.status).toBe("succeeded");
    expect(await owners(domain, entries(b).callbacks[0] as string)).toEqual([
      `${DEFAULT_REPOSITORY.id}/preview/${b}`,
    ]);
    const recovered = await engine().recover({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: b,
    });
    expect(recovered.warnings.join(" ")).toContain("recovered 3 intent");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual(entries(a).callbacks);
    expect(await owners(domain, entries(b).callbacks[0] as string)).toEqual([]);
    await settled(domain, [a, b]);
  });

  it("a waiter whose run no longer holds its scope lease (died while queued, its scope taken over) is not written for", async () => {
    // The waiter's scope lease goes (an admin, or its expiry and a takeover) while it is queued.
    const dropWaitersScope = async ({ b }: { b: string }) => {
      const scopeKey = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", b);
      await lockStub(env, scopeKey).forceRelease({
        key: scopeKey,
        reason: "test: waiter gone",
        actor: "admin",
      });
    };
    const { key, first, second } = await queuedPair(engine, engine, dropWaitersScope);
    const [ra, rb] = await Promise.all([first, second.catch((err: unknown) => err)]);
    expect(ra.run.status).toBe("succeeded");
    // The holder's write did not carry the waiter's entries: nothing was answered as combined.
    const history = (await lockStub(env, key).read({ key })).history;
    expect(history.some((h) => h.transition === "combined")).toBe(false);
    const lines = (rb as RunResult).lines ?? [];
    expect(lines.every((l) => l.writtenBy === undefined)).toBe(true);
  });

  it("one failed read of a waiter's scope lock returns only that waiter's changes: the holder's own group is written", async () => {
    let waiterScope = "";
    const failingRead = (inner: LockProvider): LockProvider => ({
      ...inner,
      holdsScope: async (repositoryId, environment, scope, holder) => {
        if (scope === waiterScope) throw new Error("network connection lost");
        return inner.holdsScope(repositoryId, environment, scope, holder);
      },
    });
    const pair = await queuedPair(
      () => engine({ wrapLocks: failingRead }),
      engine,
      async ({ b }) => {
        waiterScope = b;
      },
    );
    const [ra, rb] = await Promise.all([pair.first, pair.second]);
    expect(ra.run.status).toBe("succeeded");
    // The waiter's changes came back to it: it wrote them itself, under its own lease.
    expect(rb.run.status).toBe("succeeded");
    expect(rb.lines.every((l) => l.result === "created" && l.writtenBy === undefined)).toBe(true);
    const client = await auth0Client(pair.domain, APP_CLIENT);
    expect(client?.callbacks).toEqual([...entries(pair.a).callbacks, ...entries(pair.b).callbacks]);
    await settled(pair.domain, [pair.a, pair.b]);
  });
});
