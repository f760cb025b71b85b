/**
 * Eviction histories (./evict-histories.test.ts; docs/design.md, "Evicting stale scopes"): the
 * fleet's world with every application's web origins capped at `ORIGIN_CAP` (its foreign origin
 * counts), an environment that evicts its stale scopes, and histories that crowd the first
 * application's origins: scopes apply, days pass so the scopes that do not run again go idle, and
 * later runs need room. Plans draw their crowd from each scope's own origins and the one origin
 * every scope may want (`shared`: several owners, or one stale owner and a run joining it), and a
 * waiter may be carried into an evicting write (write combining) with such a URL.
 */
import fc from "fast-check";
import {
  CONNECTIONS_OF_TENANT,
  type Fault,
  type FeatureName,
  type Group,
  type History,
  type LineSpec,
  MAX_SCOPES,
  POINTS,
  planArb,
  type Step,
  URLS,
} from "./fleet-model";

/** The cap on each application's web origins: the foreign origin and two more. */
export const ORIGIN_CAP = 3;
export const STALE_AFTER_DAYS = 7;
/** What SPONSON_ENVIRONMENTS says in an eviction world. */
export const EVICTING_ENVIRONMENTS = JSON.stringify([
  { name: "preview", staleAfterDays: STALE_AFTER_DAYS, evictStale: true },
]);

/** The crowded list: web origins of the first application (tenant 0, two connections). */
const CROWD_OBJECT = 0;
const SHARED_ORIGIN = URLS.origin.find((u) => u.includes("shared")) as string;
const OWN_ORIGINS = URLS.origin.filter((u) => u.includes("{scope}"));

const crowdLineArb: fc.Arbitrary<Omit<LineSpec, "label">> = fc
  .record({
    // The URL several scopes may want comes up as often as a scope's own two together.
    url: fc.oneof({ arbitrary: fc.constant(SHARED_ORIGIN), weight: 2 }, fc.constantFrom(...OWN_ORIGINS)),
    // Sometimes through the tenant's second connection: the same object, a group of its own.
    connection: fc.oneof(
      { arbitrary: fc.constant(CONNECTIONS_OF_TENANT[0]?.[0] ?? 0), weight: 4 },
      fc.constantFrom(...(CONNECTIONS_OF_TENANT[0] ?? [0])),
    ),
  })
  .map(({ url, connection }) => ({ op: "auth0.webOrigin" as const, url, object: CROWD_OBJECT, connection }));

/** One or two origins on the crowded list, sometimes with a line elsewhere from the fleet's plans. */
function crowdPlanArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<LineSpec[]> {
  return fc
    .tuple(
      // At most the list's room: one scope alone always fits an empty list.
      fc.oneof(
        { arbitrary: fc.uniqueArray(crowdLineArb, { minLength: 1, maxLength: 1 }), weight: 1 },
        {
          arbitrary: fc.uniqueArray(crowdLineArb, {
            minLength: ORIGIN_CAP - 1,
            maxLength: ORIGIN_CAP - 1,
            selector: (l) => l.url,
          }),
          weight: 3,
        },
      ),
      fc.option(planArb(features), { nil: [], freq: 3 }),
    )
    .map(([crowd, rest]) => {
      const others = rest.filter(
        (l) => !crowd.some((c) => c.op === l.op && c.url === l.url && c.object === l.object),
      );
      // Labels of their own, by position: the next plan's `o0` may name another origin (a rename).
      return [...crowd.map((l, i) => ({ ...l, label: `o${i}` })), ...others];
    });
}

const scopeArb = fc.nat({ max: MAX_SCOPES - 1 });
/** The scopes that fill the list before the days pass; the last one comes only after them. */
const earlyScopeArb = fc.nat({ max: MAX_SCOPES - 2 });
const LATE_SCOPE = MAX_SCOPES - 1;

/**
 * The faults an eviction history draws: a scope lease taken away at any point with a recovery of
 * the scope served first, and provider failures. Not crashes: a crashed run's leases end only by
 * expiry and lock-delay (40 s of waiting each); the fleet property draws them.
 */
function faultArb(features: ReadonlySet<FeatureName>, alone: boolean): fc.Arbitrary<Fault> {
  const options: Array<fc.WeightedArbitrary<Fault>> = [{ arbitrary: fc.constant(NONE), weight: 6 }];
  if (features.has("lease-lost-scope"))
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("scope-lost" as const),
        point: fc.constantFrom(...POINTS.filter((p) => p !== "after-acquire")),
        nth: fc.integer({ min: 1, max: 2 }),
      }),
      weight: 1,
    });
  if (alone && features.has("provider-failures"))
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("fail-write" as const),
        nth: fc.integer({ min: 1, max: 2 }),
        status: fc.constantFrom(500, 503),
      }),
      weight: 1,
    });
  return fc.oneof(...options);
}

const NONE: Fault = { kind: "none" };

function applyArb(features: ReadonlySet<FeatureName>, scope: number, alone: boolean): fc.Arbitrary<Step> {
  return fc
    .record({ lines: crowdPlanArb(features), fault: faultArb(features, alone) })
    .map(({ lines, fault }) => ({
      action: "apply" as const,
      scope,
      lines,
      fault,
    }));
}

/** One or two scopes applying crowd plans at once. */
function appliesArb(features: ReadonlySet<FeatureName>, scopes = scopeArb): fc.Arbitrary<Group> {
  return fc
    .uniqueArray(scopes, { minLength: 1, maxLength: 2 })
    .chain((scopes) => fc.tuple(...scopes.map((s) => applyArb(features, s, scopes.length === 1))))
    .map((steps) => ({ steps }));
}

const destroyArb: fc.Arbitrary<Group> = scopeArb.map((scope) => ({
  steps: [{ action: "destroy" as const, scope, fault: { kind: "none" as const } }],
}));

/** A holder carrying a waiter's crowd plan into its write (both on the crowded list). */
function combineArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<Group> {
  return fc
    .record({
      scopes: fc.uniqueArray(scopeArb, { minLength: 2, maxLength: 2 }),
      lines: crowdPlanArb(features),
      waiterLines: crowdPlanArb(features),
    })
    .map(({ scopes, lines, waiterLines }) => ({
      steps: [
        {
          action: "combine" as const,
          scope: scopes[0] as number,
          waiter: scopes[1] as number,
          // Only the crowded list: both queue for its lock first, so the holder's grant takes the waiter.
          lines: lines.filter((l) => l.object === CROWD_OBJECT),
          waiterLines: waiterLines.filter((l) => l.object === CROWD_OBJECT),
        },
      ],
    }));
}

const idle: Group = { steps: [{ action: "idle", days: STALE_AFTER_DAYS + 3 }] };

/**
 * Scopes fill the list, days pass, and later groups need room: applies, carried waiters, now and
 * then a destroy or another idle stretch.
 */
export function evictionHistoryArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<History> {
  const later = fc.oneof(
    { arbitrary: appliesArb(features), weight: 5 },
    { arbitrary: combineArb(features), weight: 3 },
    { arbitrary: destroyArb, weight: 1 },
    { arbitrary: fc.constant(idle), weight: 1 },
  );
  return fc
    .tuple(
      // One scope at a time: a stale scope often owns the shared URL alone when the days have passed.
      fc.array(
        earlyScopeArb.chain((scope) => applyArb(features, scope, true)).map((step) => ({ steps: [step] })),
        { minLength: 1, maxLength: 2 },
      ),
      // The late scope first: the list is as the early ones left it, and they are stale now.
      applyArb(features, LATE_SCOPE, true).map((step) => ({ steps: [step] })),
      fc.array(later, { minLength: 1, maxLength: 3 }),
    )
    .map(([before, late, after]) => ({ old: null, groups: [...before, idle, late, ...after] }));
}
