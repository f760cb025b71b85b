/**
 * A stale holder's save is fenced by the next holder's first write (docs/design.md, "Writing one
 * object's items"): a run whose scope lock is force-released right after its provider write keeps
 * running, while a recovery of the scope takes the lock and the intents its receipt holds. The
 * recovery's first write is a receipt put: the stale run's final save then fails on its etag
 * instead of recording entries the recovery removes. Found by the fleet property (a scope-lost
 * fault after the write lost the run's entries) when intents lived in the scope lock (issue 24).
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { readLock } from "../../workers/locks/lock-target";
import { receipt } from "../helpers/engine";
import { stub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { expectSettled, freshWorld, providerItems, reliabilityEngine } from "./harness";

describe("reliability: a stale holder's save after its scope lease was taken away", () => {
  it("force-released after the write while a recovery takes the scope: the stale run's save fails, nothing is lost or left", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    let recovery: Promise<unknown> | null = null;
    let stale = "";
    const engine = reliabilityEngine({
      faults: async (point, detail) => {
        if (point !== "after-write" || recovery) return;
        stale = detail.runId;
        await stub(key).forceRelease({ key, reason: "test: scope lease lost", actor: "admin" });
        recovery = reliabilityEngine().recover({
          repository: DEFAULT_REPOSITORY,
          environment: "preview",
          scope,
        });
        // The recovery holds the scope (and waits for the parent lease this run holds).
        for (let i = 0; i < 10_000; i++) {
          const lock = await readLock(env, key);
          if (lock.held && lock.holder !== stale) return;
          await scheduler.wait(1);
        }
        throw new Error("the recovery never took the scope lease");
      },
    });
    const result = await engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    // Two orders are possible, and both must lose nothing: the recovery's first receipt put lands
    // first (the stale run's save then fails on its etag), or the stale run's save lands first
    // (the recovery's put is then refused, CONCURRENT_MODIFICATION, before it touches anything).
    await (recovery as Promise<unknown> | null)?.catch((err: unknown) => {
      expect((err as { code?: string }).code).toBe("CONCURRENT_MODIFICATION");
    });

    // Whatever the stale run answered, what the receipt records is what the provider holds.
    const stored = await receipt("preview", scope);
    const recorded = stored.ledger.map((e) => e.key).sort();
    const present = (await providerItems(domain))
      .filter((i) => i.includes(scope))
      .map((i) => i.split(" ")[1]);
    expect(present.sort()).toEqual(recorded);
    if (recorded.length === 0) expect(result.run.status).toBe("failed");
    // Intents live in the receipt only (docs/design.md, "Writing one object's items"): none is left.
    expect(stored.intents).toEqual([]);
    // And one more recovery finds nothing to undo.
    await reliabilityEngine().recover({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });
    await expectSettled(expect, domain, [scope]);
  });
});
