/**
 * Fault matrix, run side: another writer changes the receipt mid-run, the run's isolate dies
 * between intent and write or between write and ledger entry, the CI client hangs up mid-stream.
 * Each ends with the world settled: nothing lost, nothing orphaned, no lock held.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { lockTarget } from "../../workers/locks/lock-target";
import { testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { durableIntents, providerWrites, receipt } from "../helpers/engine";
import { expireLeaseNow, stub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { bearer } from "../helpers/tokens";
import {
  entriesOf,
  expectSettled,
  freshWorld,
  intrude,
  providerItems,
  reliabilityEngine,
  UNOWNED,
} from "./harness";

const crashAt = (point: "after-intent" | "after-write") =>
  reliabilityEngine({
    faults: (at) => {
      if (at === point) throw new SimulatedCrash(at);
    },
  });

/** The dead run's scope lease, left held as an isolate that died would leave it. */
async function leaveScopeLeaseHeld(scope: string): Promise<string> {
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  const grant = await lockTarget(env, key).acquire({
    holder: "run-dead",
    ttlMs: 60_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!grant.ok) throw new Error(grant.error.message);
  return key;
}

describe("reliability: run faults", () => {
  it("an R2 conditional put refused (another writer changed the receipt mid-run, after the run's write): a failed run with CONCURRENT_MODIFICATION, the other write survives", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    let intruded = false;
    const engine = reliabilityEngine({
      faults: async (point) => {
        if (point !== "after-intent" || intruded) return;
        intruded = true;
        await intrude(scope, "other-writer");
      },
    });
    // The provider write went out after the intrusion, so this is a run outcome, not a refusal.
    const outcome = await engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(outcome.run.status).toBe("failed");
    expect(outcome.run.error?.code).toBe("CONCURRENT_MODIFICATION");
    expect(outcome.lines[0]).toMatchObject({ id: "callback", result: "created" });
    // Nothing overwritten: the receipt is still the other writer's version.
    const stored = await receipt("preview", scope);
    expect((stored as { intruder?: string }).intruder).toBe("other-writer");
    // The three lines were one group on the application: one intent each, saved together.
    expect((await durableIntents("preview", scope)).map((i) => i.line)).toEqual([
      "callback",
      "logout",
      "origin",
    ]);

    const next = await reliabilityEngine().apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect((await receipt("preview", scope)) as { intruder?: string }).toMatchObject({
      intruder: "other-writer",
    });
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("a crash after the intent, before the write: nothing reaches the provider; after the dead lease expires the next run takes over and completes", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    await expect(
      crashAt("after-intent").apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan }),
    ).rejects.toThrow(SimulatedCrash);
    expect(await providerWrites(domain)).toBe(0);
    expect(await durableIntents("preview", scope)).toHaveLength(3);
    const key = await leaveScopeLeaseHeld(scope);

    // While the dead run's lease lasts the scope is busy; once it expires it is taken over.
    await expect(
      reliabilityEngine().apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan }),
    ).rejects.toMatchObject({
      code: "LOCK_HELD",
    });
    await expireLeaseNow(key);
    const next = await reliabilityEngine().apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect((await stub(key).read({ key })).history.some((h) => h.transition === "taken-over")).toBe(true);
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("a crash after the write, before the ledger entry: recovery removes the orphan, the run re-creates and owns it", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    await expect(
      crashAt("after-write").apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan }),
    ).rejects.toThrow(SimulatedCrash);
    // The one write carried all three: the provider holds entries no ledger owns, which recovery
    // must resolve.
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    expect((await receipt("preview", scope)).ledger).toEqual([]);

    const next = await reliabilityEngine().apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(next.run.status).toBe("succeeded");
    const stored = await receipt("preview", scope);
    expect(stored.ledger.every((e) => e.runId === next.run.id)).toBe(true);
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("the client disconnects mid-run (NDJSON reader cancelled): the run still completes and records its receipt", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    let resume!: () => void;
    const resumed = new Promise<void>((r) => {
      resume = r;
    });
    let intents = 0;
    // The run parks before its second write until the client has gone.
    const app = testApp({
      engine: {
        faults: async (point) => {
          if (point === "after-intent" && ++intents === 2) await resumed;
        },
      },
    });
    const ctx = createExecutionContext();
    const res = await app.request(
      `http://sponson.test/v1/scopes/preview/${scope}/apply`,
      {
        method: "POST",
        headers: {
          ...(await bearer("admin")),
          "content-type": "application/json",
          accept: "application/x-ndjson",
        },
        body: JSON.stringify({ plan }),
      },
      testEnv(env),
      ctx,
    );
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"type":"run"');
    await reader.cancel("CI job cancelled");
    resume();
    await waitOnExecutionContext(ctx);

    const stored = await receipt("preview", scope);
    expect(stored.runs.map((r) => r.status)).toEqual(["succeeded"]);
    expect(stored.ledger).toHaveLength(3);
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });
});
