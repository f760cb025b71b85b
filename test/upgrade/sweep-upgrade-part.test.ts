/**
 * The sweep runs the upgrade pass (workers/upgrade/) before its other parts, so the intents it drains
 * into receipts are recovered by the same sweep (docs/upgrading.md); a pass that fails fails the
 * cron invocation after every other part has run, like any part. The Worker's wiring plugs it in.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { sweepAndReport } from "../../workers/sweep/sweep-handler";
import type { UpgradeReport } from "../../workers/upgrade/upgrade-report";
import { engineSweepParts } from "../../workers/wiring/background";
import { idleSweepParts } from "../queue/idle-sweep-parts";

const NOTHING: UpgradeReport = {
  receipts: { moved: [], shadowed: [], busy: [], failed: [], notMoved: [], left: 0 },
  intents: { drained: [], busy: [], waiting: [], failed: [], left: 0 },
  done: true,
};

describe("the sweep's upgrade part", () => {
  it("is wired into the Worker's sweep", () => {
    expect(engineSweepParts(emulatorTransport).upgrade).toBeTypeOf("function");
  });

  it("runs before the intents part, which recovers what it drained", async () => {
    const order: string[] = [];
    const report = await sweepAndReport(createScheduledController(), env, {
      ...idleSweepParts,
      upgrade: async () => {
        order.push("upgrade");
        return NOTHING;
      },
      resolveStaleIntents: async () => {
        order.push("intents");
        return { resolved: 0 };
      },
    });
    expect(order).toEqual(["upgrade", "intents"]);
    expect(report.upgrade).toEqual({ ok: true, value: NOTHING });
  });

  it("a pass that fails fails the invocation, after the other parts ran", async () => {
    let intents = false;
    const run = sweepAndReport(createScheduledController(), env, {
      ...idleSweepParts,
      upgrade: async () => {
        throw new Error("receipts unreachable");
      },
      resolveStaleIntents: async () => {
        intents = true;
        return { resolved: 0 };
      },
    });
    await expect(run).rejects.toThrow(/a part failed/);
    expect(intents).toBe(true);
  });
});
