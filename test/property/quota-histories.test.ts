/**
 * Property (docs/design.md, "A share of each list", "Write combining"): scopes of one repository
 * crowd a list whose shares are set per scope and per repository, alone, two at once past the check
 * from the plan, and as a holder carrying a waiter (./fleet-quota.ts). Whatever happens: no scope's
 * share and not the repository's grows past its quota, every QUOTA_EXCEEDED is true — both judged
 * against the model of the history, not the lock's counts — and as in every fleet history nothing is
 * lost or leaked, every answer is true, ledger and lock agree (./fleet-checks.ts).
 *
 * Replaying: as ./fleet-histories.test.ts (SPONSON_PROPERTY_SEED, SPONSON_PROPERTY_PATH,
 * SPONSON_PROPERTY_RUNS; SPONSON_PROPERTY_FEATURES switches the provider failures drawn).
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { describeHistory, type History, MAX_SCOPES } from "./fleet-model";
import { quotaHistoryArb } from "./fleet-quota";
import { emptyTally, runFleetHistory } from "./fleet-runner";
import { freshFleetWorld } from "./fleet-world";
import { propertyFeatures } from "./property-features";
import { scopeNumbering, viteEnv } from "./replay";

const RUNS = Number(viteEnv.SPONSON_PROPERTY_RUNS ?? 5);
const SEED = viteEnv.SPONSON_PROPERTY_SEED;
const PATH = viteEnv.SPONSON_PROPERTY_PATH;
const replay: fc.Parameters<[History]> = {
  endOnFailure: true,
  ...(SEED !== undefined ? { seed: Number(SEED), ...(PATH ? { path: PATH } : {}) } : {}),
};
const scopeNames = scopeNumbering(MAX_SCOPES);

describe("quota histories: a list shared out per scope and per repository (property)", () => {
  const on = propertyFeatures();
  it(`after ${RUNS} random histories: no share past its quota, every refusal true, nothing lost or leaked`, {
    timeout: 600_000,
  }, async ({ expect }) => {
    const tally = emptyTally();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(quotaHistoryArb(on), async (history) => {
        const world = await freshFleetWorld(scopeNames(), { quota: true });
        const problems = await runFleetHistory(world, history, tally);
        expect(problems, `history:\n  ${describeHistory(history, world.scopeName)}`).toEqual([]);
      }),
      { numRuns: RUNS, ...replay },
    );
    console.info(
      `quota property: ${JSON.stringify(tally)} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    if (!replay.path) expect(tally.histories).toBeGreaterThanOrEqual(RUNS);
  });
});
