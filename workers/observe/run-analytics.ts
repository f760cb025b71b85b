/**
 * Workers Analytics Engine data points (docs/operations.md, "Metrics"): one per run and one per
 * lease acquisition the run waited in, on the RUN_ANALYTICS dataset. Unbound (or under `wrangler
 * dev` and the tests, where the local dataset drops writes): nothing is written; the tests pass a
 * recording stand-in. The layout is a contract with the SQL in docs/operations.md: append, never
 * reorder.
 *
 *   run:       index1 = "run"
 *              blob1 action, blob2 status, blob3 error code ("" when none), blob4 environment,
 *              blob5 repository, blob6 scope, blob7 run id
 *              double1 total ms, double2 scope lock wait ms, double3 parent lock wait ms,
 *              double4 provider ms, double5 storage ms, double6 lines, double7 provider calls
 *   lock-wait: index1 = "lock-wait"
 *              blob1 lock key, blob2 kind ("scope" | "parent"), blob3 run id, blob4 action,
 *              blob5 environment
 *              double1 wait ms
 */
import type { RunResult } from "../../shared/schemas/run";
import type { LockWait } from "../engine/run/run-metrics";

export function writeRunPoints(
  dataset: AnalyticsEngineDataset | undefined,
  result: RunResult,
  waits: LockWait[],
): void {
  if (!dataset) return;
  const { run } = result;
  const t = result.timings;
  const ms = (kind: "total" | "scopeLockWait" | "parentLockWait" | "provider" | "storage") => t?.[kind] ?? 0;
  dataset.writeDataPoint({
    indexes: ["run"],
    blobs: [
      run.action,
      run.status,
      run.error?.code ?? "",
      run.environment,
      run.repository?.name ?? "",
      run.scope,
      run.id,
    ],
    doubles: [
      ms("total"),
      ms("scopeLockWait"),
      ms("parentLockWait"),
      ms("provider"),
      ms("storage"),
      result.lines.length,
      result.counts?.providerCalls ?? 0,
    ],
  });
  for (const wait of waits) {
    dataset.writeDataPoint({
      indexes: ["lock-wait"],
      blobs: [
        wait.key,
        wait.kind === "scopeLockWait" ? "scope" : "parent",
        run.id,
        run.action,
        run.environment,
      ],
      doubles: [wait.ms],
    });
  }
}
