/**
 * What the sweep does with one parked destroy (workers/sweep/dead-letter-fate.ts, pure): re-drive
 * it, or set it aside with the reason no later sweep would re-drive it either.
 */
import { describe, expect, it } from "vitest";
import type { QueuedDestroy } from "../../workers/queue/queued-destroy";
import {
  type Configured,
  DEAD_LETTER_MAX_AGE_MS,
  letterFate,
  MAX_REDRIVES,
} from "../../workers/sweep/dead-letter-fate";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const configured: Configured = { repositoryIds: new Set([1]), environments: new Set(["preview"]) };
const job = (o: Partial<QueuedDestroy> = {}): QueuedDestroy => ({
  repositoryId: 1,
  environment: "preview",
  scope: "pr-1",
  revision: 1,
  deliveryId: "d",
  ...o,
});
const read = (j: QueuedDestroy, deadAt = NOW) => ({
  letter: { messageId: "m", body: j, attempts: 6, deadAt },
  job: j,
});

describe("a parked destroy's fate", () => {
  it("is a re-drive while nothing rules it out, up to the last re-drive and the last day", () => {
    expect(letterFate(read(job()), configured, NOW)).toMatchObject({ kind: "redrive" });
    expect(letterFate(read(job({ redrives: MAX_REDRIVES - 1 })), configured, NOW).kind).toBe("redrive");
    expect(letterFate(read(job(), NOW - DEAD_LETTER_MAX_AGE_MS), configured, NOW).kind).toBe("redrive");
  });

  it("is set aside past either bound, or for what is no longer configured", () => {
    const reason = (r: ReturnType<typeof letterFate>) => (r.kind === "set-aside" ? r.reason : null);
    expect(reason(letterFate(read(job({ redrives: MAX_REDRIVES })), configured, NOW))).toBe(
      "redrives-exhausted",
    );
    expect(reason(letterFate(read(job(), NOW - DEAD_LETTER_MAX_AGE_MS - 1), configured, NOW))).toBe(
      "too-old",
    );
    expect(reason(letterFate(read(job({ repositoryId: 2 })), configured, NOW))).toBe(
      "repository-not-configured",
    );
    expect(reason(letterFate(read(job({ environment: "qa" })), configured, NOW))).toBe(
      "environment-not-configured",
    );
    expect(reason(letterFate({ unparseable: "not JSON" }, configured, NOW))).toBe("unparseable");
  });

  it("checks no repository while none is configured: a deployment being set up drops nothing", () => {
    const none: Configured = { ...configured, repositoryIds: new Set() };
    expect(letterFate(read(job({ repositoryId: 2 })), none, NOW).kind).toBe("redrive");
  });
});
