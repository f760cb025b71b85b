// The clock moved to ./clock.ts (one test clock); this path stays while branches that import it merge.
export { ManualClock } from "./clock";
