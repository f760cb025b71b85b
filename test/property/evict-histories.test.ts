/**
 * Property (docs/design.md, "Evicting stale scopes", "Ownership of shared entries", "Write
 * combining"): scopes crowd a capped list of web origins, days pass so those that do not run again
 * go idle, and later runs need room — evicting, joining URLs a stale scope owns alone, carrying a
 * waiter that joins one, crashing now and then (./fleet-evictions.ts). Whatever happens: no entry a
 * scope surely wants is lost (judged against the model of the history, ./fleet-wants.ts: a stale
 * scope's entries on the capped list are in doubt until it applies again), none is leaked, every
 * answer is true, and ledger and lock say the same of who owns what, both ways (./fleet-checks.ts).
 *
 * Replaying: as ./fleet-histories.test.ts (SPONSON_PROPERTY_SEED, SPONSON_PROPERTY_PATH,
 * SPONSON_PROPERTY_RUNS; SPONSON_PROPERTY_FEATURES switches the fault kinds drawn, as there).
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { evictionHistoryArb } from "./fleet-evictions";
import { describeHistory, type History, MAX_SCOPES } from "./fleet-model";
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

describe("eviction histories: a capped list, idle scopes, shared URLs, carried waiters (property)", () => {
  const on = propertyFeatures();
  it(`after ${RUNS} random histories: nothing lost, nothing leaked, every answer true, ledger and lock agree`, {
    timeout: 600_000,
  }, async ({ expect }) => {
    const tally = emptyTally();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(evictionHistoryArb(on), async (history) => {
        const world = await freshFleetWorld(scopeNames(), { evicting: true });
        const problems = await runFleetHistory(world, history, tally);
        expect(problems, `history:\n  ${describeHistory(history, world.scopeName)}`).toEqual([]);
      }),
      { numRuns: RUNS, ...replay },
    );
    console.info(
      `eviction property: ${JSON.stringify(tally)} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    if (!replay.path) expect(tally.histories).toBeGreaterThanOrEqual(RUNS);
  });
});
