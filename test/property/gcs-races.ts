/**
 * GCS precondition races for the property (./gcs-races.test.ts): scopes apply origin sets on one
 * bucket's CORS rule; between a run's decisions and its write (the `after-owners` fault point) a
 * writer outside Sponson changes the bucket — takes away a foreign origin the run's plan joins, or
 * adds a foreign origin of its own — so the run's PATCH meets `412 conditionNotMet`. The design
 * says the run then re-reads AND decides again (docs/design.md, "Lease protocol"): a join of an
 * origin that is gone becomes a create.
 *
 * The model: the foreign origins (what the outside writer leaves there) and each scope's wanted
 * origins, from the history alone. After every step: the rule holds every foreign and every
 * surely-wanted origin, nothing else but origins in doubt, and a line that says its origin is there
 * is true. After destroying every scope: the foreign origins alone.
 */
import fc from "fast-check";
import { type Clock, systemClock } from "../../shared/clock";
import type { RunResult } from "../../shared/schemas/run";
import type { FaultHook } from "../../workers/engine/deps";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { bucketWithCors } from "../adapters/gcs/gcs-bucket";
import { connectionOf } from "../helpers/connections";
import { gcsBucket, seedBucket } from "../helpers/emulators-gcs";
import { checkEntries } from "../helpers/entry-history";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";
import type { FeatureName } from "./property-features";

export const ORIGINS = [
  "https://{scope}.preview.example.com",
  "https://shared.example.com",
  "https://app.example.com",
  "https://cdn.example.com",
] as const;
const FOREIGN = ["https://app.example.com", "https://cdn.example.com"];
export const MAX_SCOPES = 3;

export type Race = { kind: "none" } | { kind: "take-foreign" } | { kind: "add-foreign" } | { kind: "crash" };
export interface RaceStep {
  action: "apply" | "destroy";
  scope: number;
  origins: number[];
  race: Race;
}
export interface RaceHistory {
  steps: RaceStep[];
}

function raceArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<Race> {
  const races: Array<fc.WeightedArbitrary<Race>> = [
    { arbitrary: fc.constant({ kind: "none" as const }), weight: 2 },
    { arbitrary: fc.constant({ kind: "add-foreign" as const }), weight: 2 },
    { arbitrary: fc.constant({ kind: "crash" as const }), weight: 1 },
  ];
  if (features.has("gcs-412-take"))
    races.push({ arbitrary: fc.constant({ kind: "take-foreign" as const }), weight: 3 });
  return fc.oneof(...races);
}

const stepArb = (raceArb: fc.Arbitrary<Race>): fc.Arbitrary<RaceStep> =>
  fc.oneof(
    {
      arbitrary: fc.record({
        action: fc.constant("apply" as const),
        scope: fc.nat({ max: MAX_SCOPES - 1 }),
        origins: fc.subarray([0, 1, 2, 3], { minLength: 1 }),
        race: raceArb,
      }),
      weight: 4,
    },
    {
      arbitrary: fc.record({
        action: fc.constant("destroy" as const),
        scope: fc.nat({ max: MAX_SCOPES - 1 }),
        origins: fc.constant<number[]>([]),
        race: raceArb,
      }),
      weight: 1,
    },
  );
export function raceHistoryArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<RaceHistory> {
  return fc.array(stepArb(raceArb(features)), { minLength: 1, maxLength: 5 }).map((steps) => ({ steps }));
}

export function describeRaceStep(s: RaceStep, name: (i: number) => string): string {
  const what =
    s.action === "apply"
      ? `apply ${name(s.scope)} [${s.origins.map((o) => ORIGINS[o]).join(" ")}]`
      : `destroy ${name(s.scope)}`;
  return s.race.kind === "none" ? what : `${what}, ${s.race.kind} before its write`;
}

const clock: Clock = { ...systemClock, sleep: async () => {} };
let worlds = 0;

/** Runs one history on a fresh bucket and returns what the invariants found. */
export async function runRaceHistory(history: RaceHistory, name: (i: number) => string): Promise<string[]> {
  const b = await bucketWithCors([{ origin: [...FOREIGN], method: ["GET"] }]);
  worlds += 1;
  const conn = connectionOf(`property-gcs-race-${worlds}`, {
    type: "gcs",
    serviceAccountKey: { secret: "PROPERTY_GCS_RACE_KEY" },
  });
  const bindings = { PROPERTY_GCS_RACE_KEY: b.account.keyJson };
  const origins = async () =>
    ((await gcsBucket(b.bucket))?.cors?.[0] as { origin?: string[] } | undefined)?.origin ?? [];
  const foreign = new Set(FOREIGN);
  const wanted = new Map<number, Set<string>>();
  const doubt = new Set<string>();
  const problems: string[] = [];
  let late = 0;
  const req = (scope: number) => ({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope: name(scope),
    wait: true,
    waitTimeoutMs: 30_000,
  });

  for (const [n, step] of history.steps.entries()) {
    const where = `step ${n + 1}: ${describeRaceStep(step, name)}`;
    const plan = step.origins.map((o) => (ORIGINS[o] as string).replace("{scope}", name(step.scope)));
    let fired = false;
    const faults: FaultHook = async (point, detail) => {
      if (point !== "after-owners" || fired || step.race.kind === "none") return;
      fired = true;
      if (step.race.kind === "crash") throw new SimulatedCrash(point);
      const stored = await gcsBucket(b.bucket);
      if (!stored) throw new Error("bucket gone");
      const rules = (stored.cors ?? []) as Array<{ origin?: string[] }>;
      const [rule] = rules;
      if (!rule) return;
      const taken =
        step.race.kind === "take-foreign"
          ? // Only an origin of the group being written: one an earlier group of the run joined is
            // this scope's now, and an outside writer that takes it away is drift, not a race.
            [...foreign].find(
              (f) => detail.group.some((c) => c.key === f) && ![...wanted.values()].some((w) => w.has(f)),
            )
          : undefined;
      const added = step.race.kind === "add-foreign" ? `https://late-${++late}.example.com` : undefined;
      if (taken) foreign.delete(taken);
      if (added) foreign.add(added);
      const origin = [...(rule.origin ?? []).filter((o) => o !== taken), ...(added ? [added] : [])];
      await seedBucket(b.bucket, {
        ...stored,
        metageneration: stored.metageneration + 1,
        cors: [{ ...rule, origin }, ...rules.slice(1)],
      });
    };
    const engine = testEngine({ bindings, clock, faults });
    const lines = plan.map((origin, i) => ({
      id: `o${step.origins[i]}`,
      op: "gcs.corsOrigin",
      connection: conn,
      params: { bucket: b.bucket, rule: "#0", origin },
    }));
    let result: RunResult | undefined;
    try {
      result =
        step.action === "apply"
          ? await engine.apply({ ...req(step.scope), plan: { version: 2, lines }, allowEmpty: true })
          : await engine.destroy(req(step.scope));
    } catch (err) {
      if (!(err instanceof SimulatedCrash)) problems.push(`${where}: threw ${String(err)}`);
    }
    const have = await origins();
    const before = wanted.get(step.scope) ?? new Set<string>();
    if (result?.run.status === "succeeded") {
      wanted.set(step.scope, new Set(step.action === "apply" ? plan : []));
    } else {
      for (const o of [...before, ...plan]) if (!(before.has(o) && plan.includes(o))) doubt.add(o);
      wanted.set(step.scope, new Set([...before].filter((o) => plan.includes(o))));
      // A crashed run is recovered by the scope's next run; the model cannot know which way.
    }
    for (const line of result?.lines ?? [])
      if (["created", "unchanged", "shared", "foreign"].includes(line.result) && !have.includes(line.key))
        problems.push(`${where}: line ${line.id} says ${line.result} but ${line.key} is not there`);
    const sure = [...wanted.values()].flatMap((w) => [...w]);
    // The bucket's rule may list an origin twice (the outside writer edits it freely).
    problems.push(...checkEntries(have, { foreign, wanted: sure, doubt }, { when: where, doubles: false }));
  }
  const engine = testEngine({ bindings, clock });
  const scopes = [...new Set(history.steps.map((s) => s.scope))];
  for (const i of scopes) {
    const r = await engine.destroy(req(i));
    if (r.run.status !== "succeeded")
      problems.push(`final destroy of ${name(i)}: ${JSON.stringify(r.run.error)}`);
  }
  const settled = { foreign, wanted: [], doubt: [] };
  problems.push(
    ...checkEntries(await origins(), settled, { when: "after destroying every scope", doubles: false }),
  );
  return problems;
}
