/**
 * Property: GCS precondition races (./gcs-races.ts). A writer outside Sponson changes the bucket
 * between a run's decisions and its write, so the PATCH meets 412; the run must re-read and decide
 * again, and every answer must stay true: nothing lost, nothing leaked, no line that says an
 * origin is there when it is not.
 *
 * Replay: SPONSON_PROPERTY_SEED=S SPONSON_PROPERTY_PATH=P npx vitest run test/property/gcs-races.test.ts;
 * SPONSON_PROPERTY_RUNS=N runs N histories (default 8). The race that takes away an origin a run
 * joins is the `gcs-412-take` feature (./property-features.ts).
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { describeRaceStep, MAX_SCOPES, type RaceHistory, raceHistoryArb, runRaceHistory } from "./gcs-races";
import { propertyFeatures } from "./property-features";
import { scopeNumbering, viteEnv } from "./replay";

const RUNS = Number(viteEnv.SPONSON_PROPERTY_RUNS ?? 8);
const SEED = viteEnv.SPONSON_PROPERTY_SEED;
const PATH = viteEnv.SPONSON_PROPERTY_PATH;
const replay: fc.Parameters<[RaceHistory]> =
  SEED !== undefined ? { seed: Number(SEED), ...(PATH ? { path: PATH, endOnFailure: true } : {}) } : {};
const scopeNames = scopeNumbering(MAX_SCOPES);

describe("GCS precondition races (property)", () => {
  it(`after ${RUNS} histories with outside writes between decision and write: nothing lost, nothing leaked, every line true`, {
    timeout: 300_000,
  }, async ({ expect }) => {
    let histories = 0;
    await fc.assert(
      fc.asyncProperty(raceHistoryArb(propertyFeatures()), async (history) => {
        const name = scopeNames();
        const problems = await runRaceHistory(history, name);
        histories += 1;
        expect(
          problems,
          `history:\n  ${history.steps.map((s) => describeRaceStep(s, name)).join("\n  ")}`,
        ).toEqual([]);
      }),
      { numRuns: RUNS, ...replay },
    );
    if (!replay.path) expect(histories).toBeGreaterThanOrEqual(RUNS);
  });
});
