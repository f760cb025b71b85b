/**
 * Control for the engine histories' model (test/property/scope-model.ts): fed steps and outcomes
 * alone, it finds a lost, a leaked and a wrongly rolled-back entry, and lets doubt go either way.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import type { Step } from "../property/history-model";
import type { StepOutcome, World } from "../property/history-runner";
import { ScopeEntriesModel } from "../property/scope-model";
import { type Lists, UNRELATED } from "../property/world-state";

const world: World = { domain: "model.example.com", scopeName: (i) => `pr-${i}` };
const NONE = { kind: "none" } as const;
const ok = { run: { status: "succeeded" } } as RunResult;
const done = (step: Step): StepOutcome => ({ step, result: ok, crashed: false, faultFired: false });
const lists = (callbacks: string[]): Lists => ({
  ...UNRELATED,
  callbacks: [...UNRELATED.callbacks, ...callbacks],
});
const cb = (scope: number, path: "callback" | "silent") => `https://pr-${scope}.preview.example.com/${path}`;

describe("the engine histories' model of what scopes own", () => {
  it("an applied entry missing is lost, an entry nobody wants is leaked", () => {
    const model = new ScopeEntriesModel(world);
    model.group([done({ action: "apply", scope: 0, lines: [0], fault: NONE })]);
    expect(model.check(lists([cb(0, "callback")]), "t")).toEqual([]);
    expect(model.check(lists([]), "t")).toEqual([`t (callbacks): lost ${cb(0, "callback")}`]);
    expect(model.check(lists([cb(0, "callback"), cb(1, "callback")]), "t")).toEqual([
      `t (callbacks): leaked ${cb(1, "callback")}`,
    ]);
  });

  it("a rollback removes only what the last creating apply created", () => {
    const model = new ScopeEntriesModel(world);
    model.group([done({ action: "apply", scope: 0, lines: [0], fault: NONE })]);
    model.group([done({ action: "apply", scope: 0, lines: [0, 1], fault: NONE })]);
    model.group([done({ action: "rollback", scope: 0, fault: NONE })]);
    expect(model.check(lists([cb(0, "callback")]), "t")).toEqual([]);
    expect(model.check(lists([]), "t")).toEqual([`t (callbacks): lost ${cb(0, "callback")}`]);
  });

  it("a crashed apply leaves what it came to add in doubt, and keeps what both want", () => {
    const model = new ScopeEntriesModel(world);
    model.group([done({ action: "apply", scope: 0, lines: [0], fault: NONE })]);
    const crash = { kind: "crash", point: "after-intent", nth: 1 } as const;
    model.group([
      { step: { action: "apply", scope: 0, lines: [0, 1], fault: crash }, crashed: true, faultFired: true },
    ]);
    expect(model.check(lists([cb(0, "callback")]), "t")).toEqual([]);
    expect(model.check(lists([cb(0, "callback"), cb(0, "silent")]), "t")).toEqual([]);
    expect(model.check(lists([cb(0, "silent")]), "t")).toEqual([`t (callbacks): lost ${cb(0, "callback")}`]);
  });
});
