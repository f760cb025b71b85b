/**
 * What a fleet history is made of (./fleet-histories.test.ts): several scopes applying plans that
 * change from run to run over several Auth0 applications (objects) on two tenants, reached through
 * three connections (two of them to the same tenant), with the four list ops of each application,
 * (feature `per-item-refused`) a Clerk instance's redirect URLs, whose send is one POST or
 * DELETE per URL, and (feature `api-key-etag`) a Google API key's referrers, written with the key's
 * etag as a precondition and answered by an Operation.
 * A plan is drawn afresh for every apply, so between two runs of one scope a line may be renamed,
 * change its op, its URL, its object or its connection, or come and go. Scopes, objects and
 * connections are indices here; the runner maps them to fresh names per execution, so a replayed
 * or shrunk history never meets the state of an earlier one.
 *
 * Faults are drawn per step (./fleet-faults.ts runs them): crashes at every fault point, a lease
 * lost at every fault point (an admin force-release of the scope lock, with a recovery of the
 * scope served before the stale run goes on, or of the object's parent lock), provider failures
 * and slow writes. Features the merged engine does not survive yet are drawn only when switched on
 * (./property-features.ts).
 */
import fc from "fast-check";
import type { FaultPoint } from "../../workers/engine/deps";
import type { FeatureName } from "./property-features";

export const OPS = [
  "auth0.callbackUrl",
  "auth0.logoutUrl",
  "auth0.webOrigin",
  "auth0.allowedOrigin",
] as const;
export type Auth0Op = (typeof OPS)[number];
/** The per-item op: each redirect URL an object of its own, one request per item of a group. */
export const CLERK_OP = "clerk.redirectUrl";
/** A Google API key's referrers: one PATCH carrying the etag read, answered by an Operation. */
export const APIKEY_OP = "googleapikey.referrer";
export type OpName = Auth0Op | typeof CLERK_OP | typeof APIKEY_OP;
/** Callback and logout URLs take a path; origins do not. */
const ORIGIN_OPS = new Set<string>(["auth0.webOrigin", "auth0.allowedOrigin"]);

/** `{scope}` is filled in by the engine; `shared` URLs may be wanted by every scope; `foreign` were there first. */
export const URLS = {
  path: [
    "https://{scope}.preview.example.com/callback",
    "https://{scope}.preview.example.com/",
    "https://shared.example.com/callback",
    "https://app.example.com/callback",
  ],
  origin: [
    "https://{scope}.preview.example.com",
    "https://{scope}-api.preview.example.com",
    "https://shared.example.com",
    "https://app.example.com",
  ],
  referrer: [
    "https://{scope}.preview.example.com/*",
    "https://{scope}-api.preview.example.com/*",
    "https://shared.example.com/*",
    "https://app.example.com/*",
  ],
} as const;

/** On every application before any scope: the last two URLs of each kind are in plans, the rest in none. */
export const FOREIGN = {
  callbacks: ["https://app.example.com/callback", "http://localhost:3000/callback"],
  allowed_logout_urls: ["https://app.example.com/callback"],
  web_origins: ["https://app.example.com"],
  allowed_origins: ["https://app.example.com"],
} as const;

/**
 * Objects: (host, application). Hosts 0 and 1 are Auth0 tenants, host 2 is Clerk's API with one
 * instance, host 3 the API Keys API with one key. Connections: which host each reaches (0 and 1
 * reach the same).
 */
export const OBJECTS = [
  { tenant: 0, client: "app-a" },
  { tenant: 0, client: "app-b" },
  { tenant: 1, client: "app-a" },
  { tenant: 2, client: "clerk-instance" },
  { tenant: 3, client: "api-key" },
] as const;
export const CONNECTIONS_OF_TENANT: Record<number, readonly number[]> = {
  0: [0, 1],
  1: [2],
  2: [3],
  3: [4],
};
/** Auth0 tenants: hosts 0 … AUTH0_TENANTS − 1. */
export const AUTH0_TENANTS = 2;
/** Every host, Clerk's and the API key's included (the faults that turn a host's knobs may aim at any). */
export const TENANTS = 4;
export const CLERK_OBJECT = 3;
export const APIKEY_OBJECT = 4;
/** On the API key before any scope (the first is in plans, the second in none). */
export const APIKEY_FOREIGN = ["https://app.example.com/*", "https://localhost:3000/*"] as const;
/** The Auth0 applications: objects 0 … AUTH0_OBJECTS − 1. */
export const AUTH0_OBJECTS = 3;
/** On the Clerk instance before any scope (the last is in plans, the first in none). */
export const CLERK_FOREIGN = ["my-app://oauth-callback", "https://app.example.com/callback"] as const;
export const MAX_SCOPES = 3;
export const LABELS = ["a", "b", "c", "d", "e", "f"] as const;
/** The lock object's limit on one combined request is 200 changes: a big plan has more on one object. */
export const BIG_PLAN_MIN = 201;

export interface LineSpec {
  label: string;
  op: OpName;
  url: string;
  object: number;
  connection: number;
}

export type { FeatureName };

/** Fault points the property aims at: every await of a group write where a run may die or lose its lease. */
export const POINTS: readonly FaultPoint[] = [
  "after-acquire",
  "after-intent",
  "after-owners",
  "after-write",
  "after-report",
  "after-answer",
  "before-save",
];

export type Fault =
  | { kind: "none" }
  /** The nth time the run reaches `point` it dies (a dead isolate: no rollback, no receipt update). */
  | { kind: "crash"; point: FaultPoint; nth: number }
  /** At `point` an admin force-releases the scope lock and a recovery of the scope runs to its end. */
  | { kind: "scope-lost"; point: FaultPoint; nth: number }
  /** At `point` an admin force-releases the parent lock of the object being written. */
  | { kind: "parent-lost"; point: FaultPoint; nth: number }
  /** The run's nth write meets more provider failures than the retry budget allows. */
  | { kind: "fail-write"; nth: number; status: number }
  /**
   * The run's nth write is sent but its answer lost, and it lands only after the run ended: at the
   * latest moment the lock lets it (./fleet-faults.ts landLateWrites), after the next group's
   * writes if nothing keeps that group out. The write's retries are refused `status` (a refusal that
   * says nothing of the lost attempt), or with `status` null answered 2xx: the run succeeds.
   */
  | { kind: "late-write"; nth: number; status: number | null }
  /**
   * Another writer creates the nth redirect URL of this scope's own that any run POSTs on the
   * Clerk instance (the scope's run, or a combining holder carrying its change) right before that
   * POST: the group's send, one POST per URL, is refused there, after the requests before it. An
   * apply with this fault adds two new URLs of the scope's own (`raceLines`), so its group posts
   * at least two. With `withdrawLost`, the run's withdraw of the claims that refusal leaves never
   * reaches the lock object (./fleet-steps.ts withdrawUnreachable): the claims stay at the lock.
   */
  | { kind: "outside-create"; nth: number; withdrawLost?: true }
  /**
   * Another writer updates the API key (adds a referrer of its own) right before the nth PATCH of
   * it any run sends under its lease: that PATCH carries a stale etag, is refused, and the group is
   * read and decided again.
   */
  | { kind: "outside-update"; nth: number }
  /**
   * The run's nth write of the API key is answered by an Operation that never ends in time
   * (`pending`: an unknown outcome, landing after the run ended, as a late write) or ends with an
   * error (`error`: nothing written, a definite failure).
   */
  | { kind: "operation"; nth: number; ends: "pending" | "error" }
  /** Every provider request of the run's tenant answers this much later (slow writes). */
  | { kind: "slow"; latencyMs: number }
  /** From `point` on, the tenant's requests take longer than the lease (a hung provider write). */
  | { kind: "hung"; point: FaultPoint };

export type Step =
  | { action: "apply"; scope: number; lines: LineSpec[]; fault: Fault }
  /** `count` lines on object `object`, each a URL of the scope's own (more than one combined request carries). */
  | { action: "apply-big"; scope: number; object: number; count: number; fault: Fault }
  | { action: "destroy"; scope: number; fault: Fault }
  /**
   * Scope `holder` takes the object's parent lease; while it holds it, `waiter` queues its lines
   * with a short wait timeout; the holder takes them and stalls until the waiter gave up.
   */
  | { action: "combine-timeout"; scope: number; waiter: number; lines: LineSpec[]; waiterLines: LineSpec[] }
  /**
   * Eviction histories (./fleet-evictions.ts): scope `holder` takes the object's parent lease
   * (behind a stand-in) and carries `waiter`'s changes, queued behind it; both wait as long as any run.
   */
  | { action: "combine"; scope: number; waiter: number; lines: LineSpec[]; waiterLines: LineSpec[] }
  /** Eviction histories: every engine's clock moves `days` forward (scopes that do not run go idle). */
  | { action: "idle"; days: number };

export interface Group {
  steps: Step[];
}

export interface History {
  /** A receipt of the previous format with intents, planted before the first step (scope, lines). */
  old: { scope: number; lines: LineSpec[]; created: number } | null;
  groups: Group[];
}

const NONE: Fault = { kind: "none" };

/** The URL a spec names for `scope`, as the provider holds it. */
export function urlOf(spec: Pick<LineSpec, "url">, scope: string): string {
  return spec.url.replace("{scope}", scope);
}

/** The item a line names: `(op, key, parent)` (docs/design.md, "Ownership of shared entries"). */
export function itemId(spec: Pick<LineSpec, "op" | "url" | "object">, scope: string): string {
  return `${spec.op} ${urlOf(spec, scope)} @${spec.object}`;
}

export function isShared(url: string): boolean {
  return !url.includes("{scope}");
}

/**
 * A line on an Auth0 application, or (with `per-item-refused`) often on the Clerk instance, a
 * redirect URL: a group of several of them is a send of several requests, which a race can refuse
 * half-way; or (with `api-key-etag`) on the API key, a referrer.
 */
function lineArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<Omit<LineSpec, "label">> {
  const objects: Array<fc.WeightedArbitrary<number>> = [
    { arbitrary: fc.nat({ max: AUTH0_OBJECTS - 1 }), weight: 3 },
  ];
  if (features.has("per-item-refused")) objects.push({ arbitrary: fc.constant(CLERK_OBJECT), weight: 2 });
  if (features.has("api-key-etag")) objects.push({ arbitrary: fc.constant(APIKEY_OBJECT), weight: 2 });
  return fc
    .record({
      op: fc.constantFrom(...OPS),
      url: fc.nat({ max: 3 }),
      object: fc.oneof(...objects),
      connection: fc.nat({ max: 1 }),
    })
    .map(({ op, url, object, connection }) => {
      const on = object === CLERK_OBJECT ? CLERK_OP : object === APIKEY_OBJECT ? APIKEY_OP : op;
      const urls =
        on === APIKEY_OP ? URLS.referrer : on === op && ORIGIN_OPS.has(op) ? URLS.origin : URLS.path;
      const conns = CONNECTIONS_OF_TENANT[OBJECTS[object]?.tenant ?? 0] ?? [0];
      return {
        op: on,
        url: urls[url] as string,
        object,
        connection: conns[connection % conns.length] as number,
      };
    });
}

/**
 * A plan: distinct items. With `plan-edits`, labelled by a random draw of line ids, so a later plan
 * renames a line or gives its id another op, URL or object; without, each item has its own id (a
 * line only comes and goes, or changes its connection).
 */
export function planArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<LineSpec[]> {
  const items = fc.uniqueArray(lineArb(features), {
    maxLength: 5,
    selector: (l) => `${l.op} ${l.url} ${l.object}`,
  });
  if (!features.has("plan-edits"))
    return items.map((lines) =>
      lines.map((l) => ({
        ...l,
        label: `${l.op.replace(/^\w+\./, "")}-${URLS_ALL.indexOf(l.url)}-${l.object}`,
      })),
    );
  return items.chain((lines) =>
    fc
      .shuffledSubarray([...LABELS], { minLength: lines.length, maxLength: lines.length })
      .map((labels) => lines.map((l, i) => ({ ...l, label: labels[i] as string }))),
  );
}
const URLS_ALL: readonly string[] = [...URLS.path, ...URLS.origin, ...URLS.referrer];

function faultArb(features: ReadonlySet<FeatureName>, alone: boolean): fc.Arbitrary<Fault> {
  const point = fc.constantFrom(
    ...POINTS.filter((p) => p !== "after-acquire" || features.has("crash-before-first-look")),
  );
  const nth = fc.integer({ min: 1, max: 2 });
  const options: Array<fc.WeightedArbitrary<Fault>> = [
    { arbitrary: fc.constant(NONE), weight: 5 },
    { arbitrary: fc.record({ kind: fc.constant("crash" as const), point, nth }), weight: 3 },
  ];
  if (features.has("lease-lost-scope"))
    options.push({
      arbitrary: fc.record({ kind: fc.constant("scope-lost" as const), point, nth }),
      weight: 2,
    });
  if (features.has("lease-lost-parent"))
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("parent-lost" as const),
        point: fc.constantFrom(...POINTS),
        nth,
      }),
      weight: 2,
    });
  if (features.has("per-item-refused")) {
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("outside-create" as const),
        nth: fc.integer({ min: 1, max: 2 }),
      }),
      weight: 3,
    });
    // The refused claims cannot be withdrawn: the run's rollback must not remove the other writer's.
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("outside-create" as const),
        nth: fc.integer({ min: 1, max: 2 }),
        withdrawLost: fc.constant(true as const),
      }),
      weight: 1,
    });
  }
  if (features.has("api-key-etag")) {
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("outside-update" as const),
        nth: fc.integer({ min: 1, max: 2 }),
      }),
      weight: 2,
    });
    if (alone)
      options.push({
        arbitrary: fc.record({
          kind: fc.constant("operation" as const),
          nth: fc.constant(1),
          ends: fc.constantFrom("pending" as const, "error" as const),
        }),
        weight: 2,
      });
  }
  if (alone && features.has("provider-failures")) {
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("fail-write" as const),
        nth: fc.integer({ min: 1, max: 2 }),
        status: fc.constantFrom(500, 503),
      }),
      weight: 1,
    });
  }
  if (alone && features.has("late-writes")) {
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("late-write" as const),
        nth: fc.integer({ min: 1, max: 2 }),
        status: fc.constantFrom<number | null>(400, 401, 429),
      }),
      weight: 2,
    });
    // Its retry answered: the run succeeds, and the lost attempt still lands.
    options.push({
      arbitrary: fc.record({
        kind: fc.constant("late-write" as const),
        nth: fc.integer({ min: 1, max: 2 }),
        status: fc.constant(null),
      }),
      weight: 2,
    });
  }
  if (alone) {
    if (features.has("slow-writes"))
      options.push({
        arbitrary: fc.record({
          kind: fc.constant("slow" as const),
          latencyMs: fc.integer({ min: 20, max: 200 }),
        }),
        weight: 1,
      });
    if (features.has("hung-writes"))
      options.push({
        arbitrary: fc.record({
          kind: fc.constant("hung" as const),
          point: fc.constantFrom<FaultPoint>("after-intent", "after-owners"),
        }),
        weight: 1,
      });
  }
  return fc.oneof(...options);
}

/** Labels of the lines an `outside-create` apply adds (made new in each group: ./fleet-runner.ts). */
export const RACE_LABELS = ["ra", "rb"] as const;

/**
 * Two redirect URLs of the scope's own, absent when the step starts: the run's Clerk group posts
 * at least two URLs, so the other writer's create can refuse its send half-way (nth 2) or on its
 * first request (nth 1, the control).
 */
function raceLines(): LineSpec[] {
  return RACE_LABELS.map((label) => ({
    label,
    op: CLERK_OP,
    url: `https://{scope}.preview.example.com/race/${label}`,
    object: CLERK_OBJECT,
    connection: CONNECTIONS_OF_TENANT[OBJECTS[CLERK_OBJECT].tenant]?.[0] ?? 0,
  }));
}

function stepArb(scope: number, features: ReadonlySet<FeatureName>, alone: boolean): fc.Arbitrary<Step> {
  const fault = faultArb(features, alone);
  const options: Array<fc.WeightedArbitrary<Step>> = [
    {
      arbitrary: fc.record({ lines: planArb(features), fault }).map(({ lines, fault }) => ({
        action: "apply" as const,
        scope,
        lines: fault.kind === "outside-create" ? [...lines, ...raceLines()] : lines,
        fault,
      })),
      weight: 6,
    },
    { arbitrary: fault.map((f) => ({ action: "destroy" as const, scope, fault: f })), weight: 2 },
  ];
  if (features.has("big-plans") && alone)
    options.push({
      arbitrary: fc
        .record({
          object: fc.nat({ max: AUTH0_OBJECTS - 1 }),
          count: fc.integer({ min: BIG_PLAN_MIN, max: BIG_PLAN_MIN + 20 }),
          fault: fc.oneof({ arbitrary: fc.constant(NONE), weight: 3 }, { arbitrary: fault, weight: 1 }),
        })
        .map(({ object, count, fault }) => ({ action: "apply-big" as const, scope, object, count, fault })),
      weight: 1,
    });
  return fc.oneof(...options);
}

function groupArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<Group> {
  const concurrent = fc
    .uniqueArray(fc.nat({ max: MAX_SCOPES - 1 }), { minLength: 1, maxLength: 3 })
    .chain((scopes) => fc.tuple(...scopes.map((s) => stepArb(s, features, scopes.length === 1))))
    .map((steps) => ({ steps }));
  const options: Array<fc.WeightedArbitrary<Group>> = [{ arbitrary: concurrent, weight: 8 }];
  if (features.has("waiter-timeout"))
    options.push({
      arbitrary: fc
        .record({
          scopes: fc.uniqueArray(fc.nat({ max: MAX_SCOPES - 1 }), { minLength: 2, maxLength: 2 }),
          object: fc.nat({ max: AUTH0_OBJECTS - 1 }),
          lines: planArb(features),
          waiterLines: planArb(features),
        })
        .map(({ scopes, object, lines, waiterLines }) => {
          // Both on one object, each with at least one line there: the holder's write carries the waiter's.
          const on = (plan: LineSpec[], label: string, url: string): LineSpec[] => [
            {
              label,
              op: "auth0.callbackUrl",
              url,
              object,
              connection: CONNECTIONS_OF_TENANT[OBJECTS[object]?.tenant ?? 0]?.[0] ?? 0,
            },
            ...plan.filter(
              (l) =>
                !(l.op === "auth0.callbackUrl" && l.url === url && l.object === object) && l.label !== label,
            ),
          ];
          return {
            steps: [
              {
                action: "combine-timeout" as const,
                scope: scopes[0] as number,
                waiter: scopes[1] as number,
                lines: on(lines, "z", "https://{scope}.preview.example.com/holder"),
                waiterLines: on(waiterLines, "z", "https://{scope}.preview.example.com/waiter"),
              },
            ],
          };
        }),
      weight: 1,
    });
  return fc.oneof(...options);
}

export function historyArb(features: ReadonlySet<FeatureName>): fc.Arbitrary<History> {
  const old = features.has("old-receipts")
    ? fc.option(
        fc.record({
          scope: fc.nat({ max: MAX_SCOPES - 1 }),
          lines: planArb(features),
          created: fc.nat({ max: 5 }),
        }),
        { nil: null, freq: 2 },
      )
    : fc.constant(null);
  return fc.record({ old, groups: fc.array(groupArb(features), { minLength: 1, maxLength: 5 }) });
}

function describeLine(l: LineSpec): string {
  return `${l.label}=${l.op.replace(/^\w+\./, "")}:${l.url.replace("https://", "")}@${l.object}/c${l.connection}`;
}

function describeFault(f: Fault | undefined): string {
  if (!f || f.kind === "none") return "";
  if (f.kind === "crash" || f.kind === "scope-lost" || f.kind === "parent-lost")
    return ` ${f.kind} ${f.point} #${f.nth}`;
  if (f.kind === "fail-write") return ` provider ${f.status} on write #${f.nth}`;
  if (f.kind === "late-write")
    return ` write #${f.nth} lands late, ${f.status === null ? "its retry answered" : `its retries ${f.status}`}`;
  if (f.kind === "outside-create")
    return ` someone else creates its URL before POST #${f.nth}${f.withdrawLost ? ", the withdraw lost" : ""}`;
  if (f.kind === "outside-update") return ` someone else updates the API key before PATCH #${f.nth}`;
  if (f.kind === "operation")
    return ` write #${f.nth} of the API key: its Operation ${f.ends === "pending" ? "never done in time (lands late)" : "ends with an error"}`;
  if (f.kind === "slow") return ` slow ${f.latencyMs} ms`;
  return ` hung from ${f.point}`;
}

/** One line per step, for failure reports. */
export function describeStep(step: Step, name: (i: number) => string): string {
  switch (step.action) {
    case "apply":
      return `apply ${name(step.scope)} [${step.lines.map(describeLine).join(" ")}]${describeFault(step.fault)}`;
    case "apply-big":
      return `apply ${name(step.scope)} ${step.count} lines on object ${step.object}${describeFault(step.fault)}`;
    case "destroy":
      return `destroy ${name(step.scope)}${describeFault(step.fault)}`;
    case "combine-timeout":
      return `holder ${name(step.scope)} [${step.lines.map(describeLine).join(" ")}] takes waiter ${name(step.waiter)} [${step.waiterLines.map(describeLine).join(" ")}], which times out`;
    case "combine":
      return `holder ${name(step.scope)} [${step.lines.map(describeLine).join(" ")}] carries waiter ${name(step.waiter)} [${step.waiterLines.map(describeLine).join(" ")}]`;
    case "idle":
      return `${step.days} days pass`;
  }
}

export function describeHistory(history: History, name: (i: number) => string): string {
  const old = history.old
    ? [
        `old receipt ${name(history.old.scope)} [${history.old.lines.map(describeLine).join(" ")}], ${history.old.created} created`,
      ]
    : [];
  return [...old, ...history.groups.map((g) => g.steps.map((s) => describeStep(s, name)).join(" || "))].join(
    "\n  ",
  );
}
