// The clock moved to ../helpers/clock.ts (one test clock; FakeClock was StepClock without timers);
// this path stays while branches that import it merge.
export { StepClock as FakeClock } from "../helpers/clock";
