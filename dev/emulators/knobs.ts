import { z } from "zod";

/** `count` requests (reads or writes, as `on` says) answered `status`. */
const failureSchema = z.object({
  status: z.number().int().min(400).max(599),
  count: z.number().int().min(1).max(1_000),
  on: z.enum(["any", "read", "write"]).default("any"),
});

/** Test knobs of an emulator host (set over RPC by tests, or the local control route under npm start). */
export const emulatorKnobsSchema = z.object({
  /** Added before answering every request. */
  latencyMs: z.number().int().min(0).max(60_000).default(0),
  /** Hold each read of a shared object until this many reads have arrived (0: off). */
  readBarrier: z.number().int().min(0).max(1_000).default(0),
  /**
   * Hold each of the next N writes before the emulator applies it, until `releaseWrites()`: a
   * provider call that hangs, or state that changes between a read and a write (0: off).
   */
  holdWrites: z.number().int().min(0).max(1_000).default(0),
  /**
   * The next N writes are applied, then their answer is lost: the caller sees a network error, as
   * when a connection breaks after the provider committed the change (0: off).
   */
  loseWriteAnswers: z.number().int().min(0).max(1_000).default(0),
  /**
   * The next N writes are answered at once as lost (the caller sees a network error) and applied
   * only at `landLateWrites()` (kept until then, across `configure`): a write that lands after its
   * caller stopped waiting for it (0: off).
   */
  lateWrites: z.number().int().min(0).max(1_000).default(0),
  /** Failures armed each time a late write is taken: what the retries of that write are told. */
  failuresAfterLateWrite: z.array(failureSchema).default([]),
  /** The next N requests (reads or writes, as `on` says) fail with `status`. */
  failures: z.array(failureSchema).default([]),
  /**
   * The provider's management-API budget, enforced (./budget.ts): a counted call past it is
   * answered the provider's own 429. `clock: "header"` reads each request's time from
   * EMULATOR_NOW_HEADER (a test's manual clock) instead of the wall clock. Null: off.
   */
  budget: z
    .strictObject({
      burst: z.number().int().min(1).max(10_000),
      perSecond: z.number().positive().max(100_000),
      clock: z.enum(["wall", "header"]).default("wall"),
    })
    .nullable()
    .default(null),
});
export type EmulatorKnobs = z.infer<typeof emulatorKnobsSchema>;
/** What a caller may pass: every field optional, defaults filled in by the schema. */
export type EmulatorKnobsInput = z.input<typeof emulatorKnobsSchema>;

/** A request's time (ms) on the caller's clock, read by a budget with `clock: "header"`. */
export const EMULATOR_NOW_HEADER = "x-emulator-now";

/** Marks an answer the emulator lost (knob `loseWriteAnswers`): the transport throws instead. */
export const LOST_ANSWER_HEADER = "x-emulator-lost-answer";
