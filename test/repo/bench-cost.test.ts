/**
 * The bench's bill (bench/cost.mjs) prices what the lock objects do on their own from the same
 * rule they follow: every lease on an idle lock puts its held-lock index entry (docs/storage.md,
 * "R2 held-lock index").
 */
import { describe, expect, it } from "vitest";
import { costPerMillion } from "../../bench/cost.mjs";

describe("the bench's bill", () => {
  it("charges an index put per lock a run takes (an upper bound: a listed lock costs none)", () => {
    const counts = { providerCalls: 2, lockOps: 9, storageReads: 4, storageWrites: 2, locks: 2 };
    const line = costPerMillion({ counts, cpuMs: 10, perCallMs: 1 }).lines.find((l) =>
      l.what.includes("held-lock index"),
    );
    expect(line?.perRun).toBe(2);
    expect(line?.usdPerMillionRuns).toBeCloseTo(9, 6);
  });
});
