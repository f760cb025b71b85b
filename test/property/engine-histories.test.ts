/**
 * Property (docs/design.md, "Run algorithm"): whatever happens to a few scopes sharing one Auth0
 * application — applies of random plans, destroys, two runs at once, provider failures past the
 * retry budget, crashes between intent and write or after the write — once every scope a fault
 * was aimed at has been through a recovery pass (engine.recover; the others get none):
 *   - after every step and after recovery, the application's lists agree with a model of what each
 *     scope should own, kept from the steps and their outcomes alone (./scope-model.ts): no wanted
 *     entry lost, no entry leaked, none doubled, the unrelated entries seeded before all kept;
 *   - and, as a consistency check of the service's own records, the lists hold exactly the union
 *     of the scopes' ledgers plus the unrelated entries;
 *   - no receipt holds an intent;
 *   - every lock the history touched (scope locks, the application's parent lock) is free.
 * Along the way each step is checked too: a crash stops the run, an injected failure fails it and
 * leaves nothing it created (a write's `5xx` past the retry budget as an unknown outcome: a `5xx`
 * may have been applied, docs/design.md "Fencing around a write"), a plain run succeeds and (when
 * alone on its scope) owns its plan.
 *
 * Each history runs on a fresh emulated tenant with fresh `pr-<n>` scopes, against the engine
 * itself (createEngine: real lease objects, real R2, the Auth0 emulator; no HTTP layer).
 *
 * Replaying a failure: fast-check prints `{ seed: S, path: "P", endOnFailure: true }`. Run
 *   VITE_PROPERTY_SEED=S VITE_PROPERTY_PATH=P npx vitest run test/property
 * (vite hands VITE_-prefixed variables to the test isolate as import.meta.env), or set REPLAY
 * below. VITE_PROPERTY_RUNS=N runs N histories instead of the default.
 */
import fc from "fast-check";
import { describe, type ExpectStatic as Expect, it } from "vitest";
import { freshAuth0Domain } from "../helpers/emulators";
import { durableIntents } from "../helpers/engine";
import { describeStep, type History, historyArb, LINES, MAX_SCOPES } from "./history-model";
import { recoverAll, runStep, type StepOutcome, type World } from "./history-runner";
import { replayParameters as replayParametersOf, scopeNumbering, viteEnv } from "./replay";
import { ScopeEntriesModel } from "./scope-model";
import {
  applicationIdentity,
  expectedLists,
  FIELD_OF_OP,
  providerLists,
  receiptOf,
  seedWorld,
  sortedLists,
  touchedLocks,
} from "./world-state";

/** Set to replay one case without environment variables, e.g. { seed: 42, path: "3:1" }. */
const REPLAY: { seed: number; path?: string } | null = null;

/**
 * Provider failures and two runs on one scope at once are this file's alone; shared entries,
 * crashes and concurrent scopes on every provider are ./shared-histories.test.ts's, which
 * takes the rest of the suite's time.
 */
const NUM_RUNS = Number(viteEnv.VITE_PROPERTY_RUNS ?? 60);

const replayParameters = () => replayParametersOf<[History]>(REPLAY);
const scopeNames = scopeNumbering(MAX_SCOPES);
function freshWorld(): World {
  return { domain: freshAuth0Domain("prop"), scopeName: scopeNames() };
}

const stats = { histories: 0, steps: 0, crashes: 0, failures: 0, concurrent: 0 };
/** Where the time goes, in ms: reported with the totals. */
const phases = { seed: 0, steps: 0, checks: 0, recovery: 0, invariants: 0 };
async function timed<T>(phase: keyof typeof phases, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  try {
    return await fn();
  } finally {
    phases[phase] += Date.now() - t;
  }
}

async function checkStep(expect: Expect, world: World, outcome: StepOutcome, alone: boolean): Promise<void> {
  const { step, result } = outcome;
  const fault = step.fault;
  const where = describeStep(step, world.scopeName);
  if (fault.kind === "crash" && outcome.faultFired) {
    // A crash is a dead isolate: no answer, no rollback, no receipt update.
    expect(outcome.crashed, `${where}: the crash must stop the run`).toBe(true);
    stats.crashes += 1;
    return;
  }
  expect(outcome.crashed, `${where}: crashed without a crash fault`).toBe(false);
  if (outcome.refused) {
    // Only a rollback is refused, and only when the scope has no apply that created something.
    const runs = (await receiptOf(world, step.scope)).runs;
    if (alone)
      expect(
        runs.filter((r) => r.action === "apply" && r.created.length > 0),
        where,
      ).toEqual([]);
    return;
  }
  if (!result) throw new Error(`${where}: no result`);
  if ((fault.kind === "fail-write" || fault.kind === "fail-read") && outcome.faultFired) {
    stats.failures += 1;
    expect(result.run.status, `${where}: the provider failure must fail the run`).toBe("failed");
    // A read's failure is the provider's; a write's last 5xx says nothing of whether it was applied.
    if (fault.kind === "fail-read") expect(result.run.error?.code, where).toBe("PROVIDER_ERROR");
    else expect(result.run.error, where).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    // What it created was rolled back: not in the ledger, not at the provider. A write of unknown
    // outcome leaves its object in doubt, and the run takes it no more (docs/design.md, "Fencing
    // around a write"): what it created there before stays, a line that says `created`, in the
    // ledger and at the provider, for the scope's next run to keep or remove.
    const receipt = await receiptOf(world, step.scope);
    const lists = await providerLists(world);
    const created = result.lines.filter((l) => l.result === "created");
    expect(
      receipt.ledger
        .filter((e) => e.runId === result.run.id)
        .map((e) => e.key)
        .sort(),
      `${where}: ledger entries of the failed run are the lines it still says created`,
    ).toEqual(created.map((l) => l.key).sort());
    if (fault.kind === "fail-read") expect(created, where).toEqual([]);
    for (const line of created) {
      const field = FIELD_OF_OP[line.op];
      if (!field) throw new Error(`unexpected op ${line.op}`);
      expect(lists[field], `${where}: ${line.key} says created`).toContain(line.key);
    }
    for (const line of result.lines.filter((l) => l.result === "rolled-back")) {
      const field = FIELD_OF_OP[line.op];
      if (!field) throw new Error(`unexpected op ${line.op}`);
      expect(lists[field], `${where}: rolled back ${line.key} is still at the provider`).not.toContain(
        line.key,
      );
    }
    return;
  }
  expect(result.run.status, `${where}: ${JSON.stringify(result.run.error)}`).toBe("succeeded");
  if (!alone || step.action === "rollback") return;
  // Alone on its scope in this group: the scope now owns exactly what it asked for.
  const receipt = await receiptOf(world, step.scope);
  const want =
    step.action === "apply"
      ? step.lines.map(
          (i) => `${LINES[i]?.id} ${LINES[i]?.url.replace("{scope}", world.scopeName(step.scope))}`,
        )
      : [];
  expect(receipt.ledger.map((e) => `${e.line} ${e.key}`).sort(), `${where}: ledger`).toEqual(want.sort());
  // Durable intents wherever they are: the receipt, or the scope lock.
  expect(await durableIntents("preview", receipt.scope), `${where}: intents after a finished run`).toEqual(
    [],
  );
}

async function runHistory(expect: Expect, history: History): Promise<void> {
  const world = freshWorld();
  // Every lock the history touches is read (and so its object created) up front, in parallel:
  // creating an object is the slow part of a first lock call, and a fresh history starts free.
  const scopes = [...new Set(history.groups.flat().map((s) => s.scope))].sort();
  const [, before] = await timed("seed", () => Promise.all([seedWorld(world), touchedLocks(world, scopes)]));
  expect(
    before.filter((l) => l.held).map((l) => l.key),
    "locks held before the history",
  ).toEqual([]);
  stats.histories += 1;
  const model = new ScopeEntriesModel(world);
  for (const group of history.groups) {
    stats.steps += group.length;
    if (group.length > 1) stats.concurrent += 1;
    const outcomes = await timed("steps", () => Promise.all(group.map((step) => runStep(world, step))));
    await timed("checks", async () => {
      for (const outcome of outcomes) {
        const alone = group.filter((s) => s.scope === outcome.step.scope).length === 1;
        await checkStep(expect, world, outcome, alone);
      }
      // The lists against the model of what each scope should own, kept from the history alone.
      model.group(outcomes);
      expect(model.check(await providerLists(world), "after a step"), "lists against the model").toEqual([]);
    });
  }

  // The recovery pass runs on every scope a fault was aimed at. A scope no fault was aimed at
  // gets none: it must already be clean (no intent) on its own, which is the stronger claim.
  const faulted = scopes.filter((i) =>
    history.groups.some((g) => g.some((s) => s.scope === i && s.fault.kind !== "none")),
  );
  const recovered = await timed("recovery", () => recoverAll(world, faulted));
  expect(
    recovered.map((r) => `${r.run.scope} ${r.run.status} ${JSON.stringify(r.run.error ?? null)}`),
    "recovery pass",
  ).toEqual(recovered.map((r) => `${r.run.scope} succeeded null`));

  const t = Date.now();
  const receipts = await Promise.all(scopes.map((i) => receiptOf(world, i)));
  expect(
    (await Promise.all(receipts.map((r) => durableIntents("preview", r.scope)))).flatMap((intents, n) =>
      intents.map((i) => `${receipts[n]?.scope}: ${i.action} ${i.key} (${i.runId})`),
    ),
    "intents left (after recovery where a fault was aimed)",
  ).toEqual([]);
  const lists = await providerLists(world);
  expect(model.check(lists, "after recovery"), "lists against the model").toEqual([]);
  // And the service's own records agree with the lists (a consistency check, not the oracle).
  expect(sortedLists(lists), "provider lists = union of ledgers + unrelated").toEqual(
    sortedLists(expectedLists(receipts)),
  );
  const locks = await touchedLocks(world, scopes);
  expect(
    receipts.flatMap((r) =>
      r.ledger.filter((e) => e.parent !== applicationIdentity(world)).map((e) => e.key),
    ),
    "ledger entries without the application's identity as parent",
  ).toEqual([]);
  expect(
    locks.filter((l) => l.held || l.waiters.length > 0).map((l) => `${l.key} held by ${l.holder}`),
    "locks still held",
  ).toEqual([]);
  phases.invariants += Date.now() - t;
}

describe("engine histories on one Auth0 application (property)", () => {
  it(`after ${NUM_RUNS} random histories and a recovery pass: lists = union of ledgers, no intent, every lock free`, {
    timeout: 600_000,
  }, async ({ expect }) => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(historyArb, async (history) => {
        try {
          await runHistory(expect, history);
        } catch (err) {
          // The history, readable, next to the seed fast-check prints; the error keeps its diff.
          const lines = history.groups.map((g) =>
            g.map((s) => describeStep(s, (i) => `scope${i}`)).join(" || "),
          );
          if (err instanceof Error) err.message += `\nhistory:\n  ${lines.join("\n  ")}`;
          throw err;
        }
      }),
      { numRuns: NUM_RUNS, ...replayParameters() },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.info(
      `property: ${stats.histories} histories, ${stats.steps} steps (${stats.concurrent} concurrent groups), ` +
        `${stats.crashes} crashes, ${stats.failures} provider failures, ${seconds} s; ms per phase ${JSON.stringify(phases)}`,
    );
    // A replay with a path runs only the case it names.
    if (!replayParameters().path) expect(stats.histories).toBeGreaterThanOrEqual(NUM_RUNS);
  });
});
