/**
 * Quota histories (./quota-histories.test.ts; docs/design.md, "A share of each list"): the fleet's
 * world with the first application's web origins shared out — at most `PER_SCOPE` per scope and
 * `PER_REPOSITORY` for the repository's scopes together (every scope of the fleet is one
 * repository's) — and histories that crowd them: scopes apply alone or two at once (both past the
 * check from the plan before either writes), a holder carries a waiter queued behind it, scopes
 * are destroyed. Plans draw from each scope's own origins and origins every scope may want.
 *
 * The shares are judged against the model of the history (./fleet-wants.ts), never against the
 * lock's counts or the receipts:
 *   - a successful apply leaves its scope wanting at most `PER_SCOPE` origins of the list, or no
 *     more than the scope may have held before (what it surely wanted and what was in doubt:
 *     keeping is never refused);
 *   - after every group the scopes together want at most `PER_REPOSITORY`, or no more than they
 *     may have held before it;
 *   - a QUOTA_EXCEEDED refusal is true: the plan alone is past the scope's share, or with what
 *     every scope may hold and what the group's other runs plan, past the repository's.
 */
import fc from "fast-check";
import {
  CONNECTIONS_OF_TENANT,
  type Fault,
  type FeatureName,
  type Group,
  type History,
  itemId,
  type LineSpec,
  MAX_SCOPES,
  planArb,
  type Step,
} from "./fleet-model";
import type { RunOutcome } from "./fleet-steps";
import type { WantModel } from "./fleet-wants";
import type { FleetWorld } from "./fleet-world";

export const PER_SCOPE = 3;
export const PER_REPOSITORY = 5;
/** What each connection of a quota world says of web origins (SPONSON_CONNECTIONS `capacity`). */
export const QUOTA_CAPACITY = {
  "auth0.webOrigin": { maxEntriesPerScope: PER_SCOPE, maxEntriesPerRepository: PER_REPOSITORY },
};

const OP = "auth0.webOrigin";
/** The crowded list: web origins of the first application (tenant 0, two connections). */
const CROWD_OBJECT = 0;
const POOL = [
  "https://{scope}-q0.preview.example.com",
  "https://{scope}-q1.preview.example.com",
  "https://{scope}-q2.preview.example.com",
  "https://{scope}-q3.preview.example.com",
  "https://shared-q0.example.com",
  "https://shared-q1.example.com",
];

const crowdLineArb: fc.Arbitrary<Omit<LineSpec, "label">> = fc
  .record({
    url: fc.constantFrom(...POOL),
    connection: fc.constantFrom(...(CONNECTIONS_OF_TENANT[0] ?? [0])),
  })
  .map(({ url, connection }) => ({ op: OP, url, object: CROWD_OBJECT, connection }));

/** One to five origins on the crowded list (sometimes past the scope's share), now and then a line elsewhere. */
function quotaPlanArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<LineSpec[]> {
  return fc
    .tuple(
      fc.uniqueArray(crowdLineArb, { minLength: 1, maxLength: 5, selector: (l) => l.url }),
      fc.option(planArb(features), { nil: [], freq: 4 }),
    )
    .map(([crowd, rest]) => {
      // Elsewhere only: the crowded list's lines are the crowd's.
      const others = rest.filter((l) => !(l.op === OP && l.object === CROWD_OBJECT));
      return [...crowd.map((l, i) => ({ ...l, label: `q${i}` })), ...others];
    });
}

const NONE: Fault = { kind: "none" };

function faultArb(features: ReadonlySet<FeatureName>, alone: boolean): fc.Arbitrary<Fault> {
  if (!alone || !features.has("provider-failures")) return fc.constant(NONE);
  return fc.oneof(
    { arbitrary: fc.constant(NONE), weight: 6 },
    {
      arbitrary: fc.record({
        kind: fc.constant("fail-write" as const),
        nth: fc.integer({ min: 1, max: 2 }),
        status: fc.constantFrom(500, 503),
      }),
      weight: 1,
    },
  );
}

const scopeArb = fc.nat({ max: MAX_SCOPES - 1 });

function appliesArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<Group> {
  return fc
    .uniqueArray(scopeArb, { minLength: 1, maxLength: 2 })
    .chain((scopes) =>
      fc.tuple(
        ...scopes.map((scope) =>
          fc
            .record({ lines: quotaPlanArb(features), fault: faultArb(features, scopes.length === 1) })
            .map(({ lines, fault }): Step => ({ action: "apply", scope, lines, fault })),
        ),
      ),
    )
    .map((steps) => ({ steps }));
}

/** A holder carrying a waiter's crowd lines into its write (both queued at the crowded list's lock). */
function combineArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<Group> {
  return fc
    .record({
      scopes: fc.uniqueArray(scopeArb, { minLength: 2, maxLength: 2 }),
      lines: quotaPlanArb(features),
      waiterLines: quotaPlanArb(features),
    })
    .map(({ scopes, lines, waiterLines }) => ({
      steps: [
        {
          action: "combine" as const,
          scope: scopes[0] as number,
          waiter: scopes[1] as number,
          lines: lines.filter((l) => l.object === CROWD_OBJECT),
          waiterLines: waiterLines.filter((l) => l.object === CROWD_OBJECT),
        },
      ],
    }));
}

const destroyArb: fc.Arbitrary<Group> = scopeArb.map((scope) => ({
  steps: [{ action: "destroy" as const, scope, fault: NONE }],
}));

export function quotaHistoryArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<History> {
  return fc
    .array(
      fc.oneof(
        { arbitrary: appliesArb(features), weight: 6 },
        { arbitrary: combineArb(features), weight: 3 },
        { arbitrary: destroyArb, weight: 1 },
      ),
      { minLength: 2, maxLength: 6 },
    )
    .map((groups) => ({ old: null, groups }));
}

/** What every scope wanted and had in doubt before a group: what it may have held. */
export type Holdings = Map<number, Set<string>>;

export function holdingsOf(model: WantModel): Holdings {
  return new Map(model.scopes().map((s) => [s, new Set([...model.wanted(s), ...model.doubtful(s)])]));
}

const onList = (id: string) => id.startsWith(`${OP} `) && id.endsWith(` @${CROWD_OBJECT}`);
const listOf = (ids: Iterable<string>) => new Set([...ids].filter(onList));

/**
 * The shares after one group, against the model: `before` what every scope may have held before
 * it, `model` what each wants after it, `outcomes` the group's runs.
 */
export function checkShares(
  world: FleetWorld,
  { before, model, outcomes }: { before: Holdings; model: WantModel; outcomes: readonly RunOutcome[] },
  where: string,
): string[] {
  const problems: string[] = [];
  const heldBefore = (scope: number) => listOf(before.get(scope) ?? []);
  const planned = (o: RunOutcome) => listOf((o.plan ?? []).map((l) => itemId(l, world.scopeName(o.scope))));
  for (const o of outcomes) {
    const name = world.scopeName(o.scope);
    const plan = planned(o);
    const held = heldBefore(o.scope).size;
    if (o.plan && o.result?.run.status === "succeeded" && plan.size > Math.max(PER_SCOPE, held))
      problems.push(
        `${where}: ${name} now wants ${plan.size} web origins of the crowded list, past its share of ${PER_SCOPE} (it may have held ${held})`,
      );
    const refused = o.thrown?.code === "QUOTA_EXCEEDED" || o.result?.run.error?.code === "QUOTA_EXCEEDED";
    if (!refused) continue;
    // Everything any scope may hold, and every other run of the group plans: the loosest count.
    const all = new Set(plan);
    for (const set of before.values()) for (const id of listOf(set)) all.add(id);
    for (const other of outcomes) if (other !== o) for (const id of planned(other)) all.add(id);
    if (plan.size <= PER_SCOPE && all.size <= PER_REPOSITORY)
      problems.push(
        `${where}: ${name} was refused QUOTA_EXCEEDED, but its plan holds ${plan.size} of ${PER_SCOPE} and every scope together at most ${all.size} of ${PER_REPOSITORY}`,
      );
  }
  const wantedNow = listOf(model.allWanted().keys());
  const mayHaveHeld = new Set([...before.values()].flatMap((s) => [...listOf(s)]));
  if (wantedNow.size > Math.max(PER_REPOSITORY, mayHaveHeld.size))
    problems.push(
      `${where}: the repository's scopes now want ${wantedNow.size} web origins of the crowded list, past its share of ${PER_REPOSITORY} (they may have held ${mayHaveHeld.size})`,
    );
  return problems;
}
