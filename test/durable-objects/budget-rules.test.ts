/**
 * The budget object's decisions (durable-objects/budget-rules.ts; docs/design.md, "Write budgets"):
 * refill, take and a provider's feedback, each a pure function of the bucket, the rate and `nowMs`.
 * Every row is a history of calls on one bucket and what each was answered.
 */
import { describe, expect, it } from "vitest";
import { type BucketState, drain, refill, take } from "../../durable-objects/budget-rules";
import type { BudgetRate } from "../../shared/rpc/budget-bucket";

const FREE: BudgetRate = { burst: 2, perSecond: 2 };
const PAID: BudgetRate = { burst: 10, perSecond: 2.5 };
const NEVER = Number.POSITIVE_INFINITY;

type Step = { take: number; at: number; cost?: number; notAfter?: number } | { drain: number; at: number };

/** Each step's answer: the grant's time, `refused@<time>`, or `drained`. */
function history(rate: BudgetRate, steps: Step[]): Array<number | string> {
  let state: BucketState | undefined;
  return steps.map((step) => {
    if ("drain" in step) {
      state = drain(state, rate, { nowMs: step.at, untilMs: step.drain });
      return "drained";
    }
    const answer = take(state, rate, {
      nowMs: step.at,
      cost: step.cost ?? 1,
      notAfterMs: step.notAfter ?? NEVER,
    });
    if (answer.kind === "refused") return `refused@${answer.atMs}`;
    state = answer.state;
    return answer.atMs;
  });
}

const t = (at: number, more: Omit<Extract<Step, { take: number }>, "take" | "at"> = {}): Step => ({
  take: 1,
  at,
  ...more,
});

const ROWS: Array<{ name: string; rate: BudgetRate; steps: Step[]; answers: Array<number | string> }> = [
  {
    name: "a fresh bucket grants its burst at once, then one call per interval",
    rate: FREE,
    steps: [t(0), t(0), t(0), t(0)],
    answers: [0, 0, 500, 1000],
  },
  {
    name: "the paid tier's burst of 10, then 2.5 a second",
    rate: PAID,
    steps: [...Array.from({ length: 10 }, () => t(0)), t(0), t(0)],
    answers: [...Array(10).fill(0), 400, 800],
  },
  {
    name: "a read and its write taken together are granted together, when both tokens are there",
    rate: FREE,
    steps: [t(0, { cost: 2 }), t(0, { cost: 2 }), t(0)],
    answers: [0, 1000, 1500],
  },
  {
    name: "idle time refills, never past the burst",
    rate: FREE,
    steps: [t(0), t(0), t(60_000), t(60_000), t(60_000)],
    answers: [0, 0, 60_000, 60_000, 60_500],
  },
  {
    name: "a call whose grant would come after its deadline is refused and takes nothing",
    rate: FREE,
    steps: [t(0), t(0), t(0, { notAfter: 499 }), t(0, { notAfter: 500 })],
    answers: [0, 0, "refused@500", 500],
  },
  {
    name: "a caller whose clock is behind is granted on the bucket's own timeline",
    rate: FREE,
    steps: [t(1000), t(1000), t(400)],
    answers: [1000, 1000, 1500],
  },
  {
    name: "a 429 with its reset: nothing is granted before the reset, then one per interval",
    rate: FREE,
    steps: [t(0), { drain: 3000, at: 100 }, t(200), t(200)],
    answers: [0, "drained", 3000, 3500],
  },
  {
    name: "a reset sooner than the calls already promised changes nothing",
    rate: FREE,
    steps: [t(0), t(0), t(0), t(0), { drain: 600, at: 0 }, t(0)],
    answers: [0, 0, 500, 1000, "drained", 1500],
  },
  {
    name: "a 429 whose reset has passed (clocks apart) still empties the bucket for one interval",
    rate: FREE,
    steps: [{ drain: 0, at: 1000 }, t(1000)],
    answers: ["drained", 1500],
  },
  {
    name: "a 429 on an idle bucket: its burst is back only as time refills it after the reset",
    rate: FREE,
    steps: [{ drain: 2000, at: 0 }, t(0), t(0), t(0)],
    answers: ["drained", 2000, 2500, 3000],
  },
];

describe("a provider tenant's token bucket", () => {
  for (const row of ROWS)
    it(row.name, () => {
      expect(history(row.rate, row.steps)).toEqual(row.answers);
    });

  it("refill reads the bucket at a time without changing what was promised", () => {
    const state: BucketState = { tokens: -1, atMs: 0 };
    expect(refill(state, FREE, 250)).toEqual({ tokens: -0.5, atMs: 250 });
    expect(refill(state, FREE, 10_000)).toEqual({ tokens: 2, atMs: 10_000 });
    // Time never runs backwards for the bucket.
    expect(refill(state, FREE, -5)).toEqual({ tokens: -1, atMs: 0 });
  });

  it("a cost above the burst is taken as the burst (the provider never allows more at once)", () => {
    expect(history(FREE, [t(0, { cost: 5 }), t(0)])).toEqual([0, 500]);
  });
});
