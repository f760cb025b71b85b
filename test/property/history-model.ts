/**
 * What a random history is made of (the property suite): steps on a few scopes of one
 * Auth0 application, run one at a time or two at once, some of them crashing (between
 * intent and write, or after the write before the ledger entry) or failing at the provider.
 * Scopes are indices here; the runner maps them to fresh `pr-<n>` names per execution, so a
 * replayed or shrunk history never meets the state of an earlier one.
 */
import fc from "fast-check";
import type { FaultPoint } from "../../workers/engine/deps";

/** The lines a plan picks from. Every URL names the scope, so two scopes never share a key. */
export const LINES = [
  { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  { id: "silent", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/silent" },
  { id: "logout", op: "auth0.logoutUrl", url: "https://{scope}.preview.example.com/" },
  { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
] as const;

export const MAX_SCOPES = 4;

export type Fault =
  | { kind: "none" }
  /** The nth fault point of this kind in the run throws SimulatedCrash (a dead isolate). */
  | { kind: "crash"; point: FaultPoint; nth: number }
  /** The nth write of the run meets more provider failures than the retry budget allows. */
  | { kind: "fail-write"; nth: number; status: number }
  /** The run's first read meets more provider failures than the retry budget allows. */
  | { kind: "fail-read"; status: number };

export type Step =
  | { action: "apply"; scope: number; lines: number[]; fault: Fault }
  | { action: "destroy"; scope: number; fault: Fault }
  /** Undo the scope's last apply that created something (docs/design.md, "Run algorithm", rollback). */
  | { action: "rollback"; scope: number; fault: Fault };

/** Steps started together (Promise.all). Provider failures are per host, so they run alone. */
export type Group = Step[];

export interface History {
  groups: Group[];
}

const NONE: Fault = { kind: "none" };
const scopeArb = fc.nat({ max: MAX_SCOPES - 1 });
const linesArb = fc.subarray(
  LINES.map((_, i) => i),
  { minLength: 0 },
);
const nthArb = fc.integer({ min: 1, max: 2 });
const statusArb = fc.constantFrom(500, 502, 503, 504);

const crashArb: fc.Arbitrary<Fault> = fc.record({
  kind: fc.constant("crash" as const),
  point: fc.constantFrom<FaultPoint>("after-intent", "after-write"),
  nth: nthArb,
});

function applyArb(alone: boolean): fc.Arbitrary<Step> {
  const faults: Array<fc.WeightedArbitrary<Fault>> = [
    { arbitrary: fc.constant(NONE), weight: 4 },
    { arbitrary: crashArb, weight: 2 },
  ];
  if (alone) {
    faults.push(
      {
        arbitrary: fc.record({ kind: fc.constant("fail-write" as const), nth: nthArb, status: statusArb }),
        weight: 1,
      },
      { arbitrary: fc.record({ kind: fc.constant("fail-read" as const), status: statusArb }), weight: 1 },
    );
  }
  return fc
    .record({ scope: scopeArb, lines: linesArb, fault: fc.oneof(...faults) })
    .map(({ scope, lines, fault }) => ({
      action: "apply" as const,
      scope,
      lines,
      // An apply with no lines may read nothing at all, so a read failure would not be met.
      fault: fault.kind === "fail-read" && lines.length === 0 ? NONE : fault,
    }));
}

function removalArb(action: "destroy" | "rollback"): fc.Arbitrary<Step> {
  return fc
    .record({
      scope: scopeArb,
      fault: fc.oneof({ arbitrary: fc.constant(NONE), weight: 3 }, { arbitrary: crashArb, weight: 1 }),
    })
    .map(({ scope, fault }) => ({ action, scope, fault }));
}

function stepArb(alone: boolean): fc.Arbitrary<Step> {
  return fc.oneof(
    { arbitrary: applyArb(alone), weight: 6 },
    { arbitrary: removalArb("destroy"), weight: 2 },
    { arbitrary: removalArb("rollback"), weight: 1 },
  );
}

const groupArb: fc.Arbitrary<Group> = fc.oneof(
  { arbitrary: stepArb(true).map((s) => [s]), weight: 1 },
  { arbitrary: fc.tuple(stepArb(false), stepArb(false)), weight: 1 },
);

export const historyArb: fc.Arbitrary<History> = fc
  .array(groupArb, { minLength: 1, maxLength: 4 })
  .map((groups) => ({ groups }));

/** One line per step, for failure reports: "apply pr-1 [callback,logout] crash after-write #2". */
export function describeStep(step: Step, scopeName: (i: number) => string): string {
  const what =
    step.action === "apply"
      ? `apply ${scopeName(step.scope)} [${step.lines.map((i) => LINES[i]?.id).join(",")}]`
      : `${step.action} ${scopeName(step.scope)}`;
  const f = step.fault;
  const fault =
    f.kind === "none"
      ? ""
      : f.kind === "crash"
        ? ` crash ${f.point} #${f.nth}`
        : f.kind === "fail-write"
          ? ` provider ${f.status} on write #${f.nth}`
          : ` provider ${f.status} on first read`;
  return what + fault;
}
