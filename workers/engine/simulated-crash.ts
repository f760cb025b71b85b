/**
 * A fault hook's crash (deps.ts `FaultHook`, the reliability and property suites): the run stops
 * where it is, as if its isolate died. Here, not in deps.ts, which declares only types.
 */
import type { FaultPoint } from "./deps";

/** Thrown by a fault hook: the run stops as if its isolate died (no rollback, no receipt update). */
export class SimulatedCrash extends Error {
  constructor(point: FaultPoint) {
    super(`simulated crash at ${point}`);
    this.name = "SimulatedCrash";
  }
}

/** Catch blocks that turn errors into line results let a simulated crash through. */
export function rethrowCrash(err: unknown): void {
  if (err instanceof SimulatedCrash) throw err;
}
