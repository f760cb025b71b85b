/**
 * The sweep's real intent resolver (workers/sweep/stale-intents.ts as the Worker wires it): intents
 * a crashed run left are resolved through the engine's own recovery, and the count says how many
 * actually were, leaving out scopes that were busy or whose recovery failed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { scopeLockKey } from "../../shared/lock-keys";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { lockTarget } from "../../workers/locks/lock-target";
import { engineSweepParts } from "../../workers/wiring/background";
import { testEnv } from "../helpers/connections";
import { configureHost } from "../helpers/emulators";
import { durableIntents } from "../helpers/engine";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshWorld, providerItems, reliabilityEngine, UNOWNED } from "../reliability/harness";

/** A run that dies right after its first provider write: its intent stays in the receipt. */
async function crashedAfterWrite() {
  const world = await freshWorld();
  const engine = reliabilityEngine({
    faults: (at) => {
      if (at === "after-write") throw new SimulatedCrash(at);
    },
  });
  await expect(
    engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: world.scope,
      plan: world.plan,
    }),
  ).rejects.toThrow(SimulatedCrash);
  // The plan's three lines are one write on the application: an intent each, saved together.
  expect(await durableIntents("preview", world.scope)).toHaveLength(3);
  return world;
}

describe("the sweep's intent resolver", () => {
  it("resolves a crashed run's intent through the engine and counts only the intents it resolved", async () => {
    const recovered = await crashedAfterWrite();
    const busy = await crashedAfterWrite();
    const failing = await crashedAfterWrite();
    expect(await providerItems(recovered.domain)).toContain(
      `callbacks https://${recovered.scope}.preview.example.com/callback`,
    );
    // A live run holds one scope; the other's provider fails every request.
    const held = await lockTarget(env, scopeLockKey(DEFAULT_REPOSITORY.id, "preview", busy.scope)).acquire({
      holder: "run-live",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    expect(held.ok).toBe(true);
    await configureHost(failing.domain, { failures: [{ status: 503, count: 1_000, on: "any" }] });

    const now = Date.now() + 60_000;
    const report = await engineSweepParts(emulatorTransport).resolveStaleIntents(testEnv(env), {
      olderThan: now,
      now,
    });

    expect(report.resolved).toBe(3);
    expect(report.detail).toContain(`busy: ${DEFAULT_REPOSITORY.name}:preview/${busy.scope}`);
    expect(report.detail).toContain(`failed: ${DEFAULT_REPOSITORY.name}:preview/${failing.scope} (3 left`);
    // The crashed run never recorded success: its write is undone and its intent gone.
    expect(await durableIntents("preview", recovered.scope)).toEqual([]);
    expect(await providerItems(recovered.domain)).toEqual([`callbacks ${UNOWNED}`]);
    expect(await durableIntents("preview", busy.scope)).toHaveLength(3);
    expect(await durableIntents("preview", failing.scope)).toHaveLength(3);
  });
});
