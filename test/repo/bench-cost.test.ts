/**
 * The bench's bill (bench/cost.mjs) prices what the lock objects do on their own from the same
 * rule they follow: its listing delay is the held-lock index's.
 */
import { describe, expect, it } from "vitest";
import { costPerMillion, LIST_AFTER_MS } from "../../bench/cost.mjs";
import { LIST_AFTER_MS as INDEX_LIST_AFTER_MS } from "../../durable-objects/held-index";

describe("the bench's bill", () => {
  it("uses the held-lock index's listing delay", () => {
    expect(LIST_AFTER_MS).toBe(INDEX_LIST_AFTER_MS);
  });

  it("charges an index put only to runs long enough to be listed", () => {
    const counts = { providerCalls: 2, lockOps: 9, storageReads: 4, storageWrites: 2, locks: 2 };
    const line = (share: number) =>
      costPerMillion({ counts, cpuMs: 10, perCallMs: 1, listedRunShare: share }).lines.find((l) =>
        l.what.includes("held-lock index"),
      );
    expect(line(0)?.perRun).toBe(0);
    expect(line(1)?.perRun).toBe(2);
    expect(line(1)?.usdPerMillionRuns).toBeCloseTo(9, 6);
  });
});
