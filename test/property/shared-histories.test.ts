/**
 * Property: entries several scopes want are never lost, on every provider. For each of the fourteen
 * providers, random histories (./shared-model.ts) run on a fresh shared object seeded with two
 * foreign entries: up to four scopes apply plans mixing entries every scope may want, a foreign
 * entry and entries of their own; destroys and rollbacks come in between; up to three steps run at
 * once on different scopes; runs crash after an intent or after a provider write. After a recovery
 * pass on every scope a crash was aimed at (./shared-runner.ts):
 *   - the object's list is exactly the foreign entries plus every entry a live scope wants, where
 *     "wants" comes from the model of the history, never from a ledger or an owner list;
 *   - no receipt holds an intent and every lock the history touched is free;
 *   - every ledger, and the parent lock's owners of every entry, agree with the model;
 *   - every step answered what the model expects (`shared`, `released`, `foreign`, ...).
 * ./shared-controls.test.ts shows the same check failing with ownership or parent locks off.
 *
 * Replaying a failure: fast-check prints `{ seed: S, path: "P", endOnFailure: true }` under the
 * provider's test. Run
 *   VITE_PROPERTY_SEED=S VITE_PROPERTY_PATH=P npx vitest run test/property/shared-histories.test.ts -t <provider>
 * (vite hands VITE_-prefixed variables to the test isolate as import.meta.env), or set REPLAY
 * below. VITE_SHARED_RUNS=N runs N histories per provider instead of the default.
 */
import fc from "fast-check";
import { afterAll, describe, it } from "vitest";
import { replayParameters as replayParametersOf, scopeNumbering, viteEnv } from "./replay";
import { describeStep, FOREIGN_HOSTS, type History, historyArb, MAX_SCOPES } from "./shared-model";
import { runSharedHistory, type Tally, verdictProblems } from "./shared-runner";
import { PROVIDER_NAMES, type ProviderName, SHARED_OBJECTS } from "./shared-worlds";

/** Set to replay one case without environment variables, e.g. { seed: 42, path: "3:1" }. */
const REPLAY: { seed: number; path?: string } | null = null;

const RUNS = Number(viteEnv.VITE_SHARED_RUNS ?? 10);

const replayParameters = () => replayParametersOf<[History]>(REPLAY);
const scopeNames = scopeNumbering(MAX_SCOPES);

type Row = Tally & { histories: number; seconds: number };
const rows = new Map<ProviderName, Row>();

afterAll(() => {
  const head = ["provider", "histories", "steps", "concurrent", "crashes", "shared", "released", "seconds"];
  const table = [...rows].map(([provider, r]) => [
    provider,
    r.histories,
    r.steps,
    r.concurrent,
    r.crashes,
    r.shared,
    r.released,
    r.seconds.toFixed(1),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...table.map((row) => String(row[c]).length)));
  const line = (cells: ReadonlyArray<string | number>) =>
    cells.map((cell, c) => String(cell).padStart(widths[c] ?? 0)).join("  ");
  console.info(
    `shared-entry property (concurrent = groups of 2-3 steps at once; shared / released = lines that ` +
      `joined other owners / let go of an entry others keep):\n${[line(head), ...table.map(line)].join("\n")}`,
  );
});

describe("shared entries on every provider's shared object (property)", () => {
  for (const provider of PROVIDER_NAMES) {
    it(`${provider}: after ${RUNS} random histories and a recovery pass the list is the foreign entries plus what live scopes want`, {
      timeout: 300_000,
    }, async ({ expect }) => {
      const row: Row = {
        histories: 0,
        steps: 0,
        concurrent: 0,
        crashes: 0,
        shared: 0,
        released: 0,
        seconds: 0,
      };
      rows.set(provider, row);
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(historyArb, async (history) => {
          const scopeName = scopeNames();
          const object = await SHARED_OBJECTS[provider](FOREIGN_HOSTS);
          const world = { object, scopeName, controls: { ownership: true, parentLocks: true }, strict: true };
          const verdict = await runSharedHistory(world, history, row);
          row.histories += 1;
          const lines = history.groups.map((g) => g.map((s) => describeStep(s, scopeName)).join(" || "));
          expect(verdictProblems(verdict), `history:\n  ${lines.join("\n  ")}`).toEqual([]);
        }),
        { numRuns: RUNS, ...replayParameters() },
      );
      row.seconds = (Date.now() - started) / 1000;
      // A replay with a path runs only the case it names.
      if (!replayParameters().path) expect(row.histories).toBeGreaterThanOrEqual(RUNS);
    });
  }
});
