/**
 * The fence's phase rule (workers/engine/write/fence-phase.ts; docs/design.md, "One group write,
 * one fence"), as a table of every stage × every event, each asserted with and without the claims
 * as the last parent call. Fence (fence.ts) only carries out what a step says; fence.test.ts and
 * the engine suites pin the calls each effect makes.
 */
import { describe, expect, it } from "vitest";
import {
  type FenceEffect,
  type FenceEvent,
  type FenceStage,
  fenceStart,
  fenceStep,
} from "../../workers/engine/write/fence-phase";

const EVENTS = {
  "other-call": { kind: "other-call" },
  claimed: { kind: "claimed" },
  "before-write": { kind: "before-write" },
  "sent-partly": { kind: "sent-partly" },
  "written, renew": { kind: "written", after: "renew" },
  "written, call": { kind: "written", after: "call" },
  "written, release": { kind: "written", after: "release" },
  "checked-after, renew": { kind: "checked-after", after: "renew", parent: true },
  "checked-after, call": { kind: "checked-after", after: "call", parent: true },
  "checked-after, release": { kind: "checked-after", after: "release", parent: true },
  "checked-after, renew, no parent": { kind: "checked-after", after: "renew", parent: false },
  "checked-after, call, no parent": { kind: "checked-after", after: "call", parent: false },
  "checked-after, release, no parent": { kind: "checked-after", after: "release", parent: false },
  failure: { kind: "failure", crash: false },
  "failure, crash": { kind: "failure", crash: true },
  follow: { kind: "follow" },
  "call-refused": { kind: "call-refused" },
  "call-failed": { kind: "call-failed" },
  release: { kind: "release" },
  doubt: { kind: "doubt", parent: true },
  "doubt, no parent": { kind: "doubt", parent: false },
} satisfies Record<string, FenceEvent>;

type EventName = keyof typeof EVENTS;
/** The next stage and the effect; a pair of effects: without, then with the claims made last. */
type Cell = readonly [FenceStage, FenceEffect | readonly [FenceEffect, FenceEffect]];
const BEFORE: Cell[1] = ["round-trip", "assert-held"];

/** Whether the claims are the last parent call after the event, whatever the stage. */
const CLAIMED_LAST: Record<EventName, "set" | "cleared" | "kept"> = {
  "other-call": "cleared",
  claimed: "set",
  "before-write": "cleared",
  follow: "cleared",
  "sent-partly": "kept",
  "written, renew": "kept",
  "written, call": "kept",
  "written, release": "kept",
  "checked-after, renew": "kept",
  "checked-after, call": "kept",
  "checked-after, release": "kept",
  "checked-after, renew, no parent": "kept",
  "checked-after, call, no parent": "kept",
  "checked-after, release, no parent": "kept",
  failure: "kept",
  "failure, crash": "kept",
  "call-refused": "kept",
  "call-failed": "kept",
  release: "kept",
  doubt: "kept",
  "doubt, no parent": "kept",
};

/** Once written (fenced), the check after passed: what is owed, by the means named. */
const OWED_AFTER_CHECK = {
  "checked-after, renew": ["checked", "none"],
  "checked-after, call": ["call-owed", "none"],
  "checked-after, release": ["release-owed", "none"],
  "checked-after, renew, no parent": ["checked", "none"],
  "checked-after, call, no parent": ["call-owed", "none"],
  // Nothing to release: the renewal it stood for was made.
  "checked-after, release, no parent": ["checked", "none"],
} as const satisfies Partial<Record<EventName, Cell>>;

/** Every event on a stage that owes nothing (the control, or in doubt): only the checks before. */
function owesNothing(stage: FenceStage, doubt: FenceStage): Record<EventName, Cell> {
  const cells = {} as Record<EventName, Cell>;
  for (const name of Object.keys(EVENTS) as EventName[]) cells[name] = [stage, "none"];
  return { ...cells, "before-write": [stage, BEFORE], follow: [stage, "plain-call"], doubt: [doubt, "none"] };
}

/** The stages a write was made in, alike but for the rows each names. */
function written(stage: FenceStage, rows: Partial<Record<EventName, Cell>>): Record<EventName, Cell> {
  return {
    "other-call": [stage, "none"],
    claimed: [stage, "none"],
    "before-write": [stage, BEFORE],
    "sent-partly": ["partly-sent", "none"],
    "written, renew": [stage, "renew-both"],
    "written, call": [stage, "check-scope"],
    "written, release": [stage, "check-scope"],
    ...OWED_AFTER_CHECK,
    failure: [stage, "none"],
    "failure, crash": [stage, "none"],
    follow: [stage, "watched-call"],
    "call-refused": [stage, "check-parent"],
    "call-failed": [stage, "check-parent"],
    release: [stage, "none"],
    doubt: ["in-doubt", "none"],
    "doubt, no parent": [stage, "none"],
    ...rows,
  };
}

const TABLE: Record<FenceStage, Record<EventName, Cell>> = {
  unfenced: owesNothing("unfenced", "in-doubt"),
  unwritten: {
    ...written("unwritten", {}),
    // Nothing written: a call after it is made as it is, and its failure checks nothing.
    follow: ["unwritten", "plain-call"],
    "call-refused": ["unwritten", "none"],
    "call-failed": ["unwritten", "none"],
  },
  "partly-sent": written("partly-sent", {
    // The group fails before a later check after: it is made now, the parent's then the scope's,
    // and a token-checked parent call that follows still stands for the parent's.
    failure: ["call-owed", "check-both"],
    "call-refused": ["partly-sent", "unknown-outcome"],
  }),
  checked: written("checked", {}),
  "call-owed": written("call-owed", { "call-refused": ["call-owed", "unknown-outcome"] }),
  "release-owed": written("release-owed", { release: ["checked", "release-as-check"] }),
  "in-doubt": owesNothing("in-doubt", "in-doubt"),
};

describe("the fence's phase: every stage × every event", () => {
  for (const [stage, row] of Object.entries(TABLE) as Array<[FenceStage, Record<EventName, Cell>]>) {
    for (const [name, [next, effects]] of Object.entries(row) as Array<[EventName, Cell]>) {
      for (const claimedLast of [false, true]) {
        const effect = typeof effects === "string" ? effects : effects[claimedLast ? 1 : 0];
        const claims = CLAIMED_LAST[name];
        const after = claims === "kept" ? claimedLast : claims === "set";
        it(`${stage}${claimedLast ? " (claims last)" : ""}, ${name}: ${next}, ${effect}`, () => {
          const step = fenceStep({ stage, claimedLast }, EVENTS[name]);
          expect(step).toEqual({ phase: { stage: next, claimedLast: after }, effect });
        });
      }
    }
  }

  it("the table names every stage and every event", () => {
    expect(Object.keys(TABLE)).toHaveLength(7);
    for (const row of Object.values(TABLE))
      expect(Object.keys(row).sort()).toEqual(Object.keys(EVENTS).sort());
    expect(Object.keys(CLAIMED_LAST).sort()).toEqual(Object.keys(EVENTS).sort());
  });

  it("starts unwritten, or unfenced under the control, with no claims made", () => {
    expect(fenceStart(true)).toEqual({ stage: "unwritten", claimedLast: false });
    expect(fenceStart(false)).toEqual({ stage: "unfenced", claimedLast: false });
  });

  it("the warm path: claims, the check before by assertion, the release as the check after", () => {
    const events: EventName[] = [
      "other-call",
      "claimed",
      "before-write",
      "written, release",
      "checked-after, release",
      "release",
      "release",
    ];
    let phase = fenceStart(true);
    const effects = events.map((name) => {
      const step = fenceStep(phase, EVENTS[name]);
      phase = step.phase;
      return step.effect;
    });
    expect(effects).toEqual([
      "none",
      "none",
      "assert-held",
      "check-scope",
      "none",
      "release-as-check",
      "none",
    ]);
    expect(phase.stage).toBe("checked");
  });
});
