/**
 * The Worker's `scheduled()` entry, wired in workers/index.ts. The engine plugs its parts in:
 *
 *   scheduled: createSweepHandler({ resolveStaleIntents, scopesOwningEntries })
 *
 * A part that failed makes the invocation fail (visible in Cron Trigger history) after every
 * other part has run and the report is logged.
 */
import type { Env } from "../../shared/env";
import { forwardAudit } from "../audit/audit-forward";
import { listsNearCapacity } from "./near-capacity";
import { notifyNewOrphans } from "./orphan-notices";
import { runSweep, type SweepParts, type SweepReport, settle, sweepFailed } from "./sweep";

export function createSweepHandler(parts: SweepParts) {
  return async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
    await sweepAndReport(controller, env, parts);
  };
}

/** One sweep with its report logged; throws after logging when a part failed. */
export async function sweepAndReport(
  controller: ScheduledController,
  env: Env,
  parts: SweepParts,
): Promise<SweepReport> {
  const report = await runSweep(env, parts, controller.scheduledTime);
  report.nearCapacity = await settle(listsNearCapacity(env, report.at));
  const near = report.nearCapacity.ok
    ? report.nearCapacity.value
    : { lists: [], unreadable: [], claimsLeft: [] };
  for (const list of near.lists) {
    const { notify: _, ...fill } = list;
    console.warn(JSON.stringify({ event: "list-near-capacity", ...fill }));
  }
  for (const lock of near.unreadable)
    console.warn(JSON.stringify({ event: "near-capacity-unreadable", ...lock }));
  for (const lock of near.claimsLeft)
    console.warn(JSON.stringify({ event: "near-capacity-claims-left", ...lock }));
  const closed = report.closedWithEntries.ok ? report.closedWithEntries.value : [];
  for (const scope of closed) console.warn(JSON.stringify({ event: "closed-scope-owns-entries", ...scope }));
  const orphans = report.orphans.ok ? report.orphans.value.orphans : [];
  for (const orphan of orphans) console.warn(JSON.stringify({ event: "orphan", ...orphan }));
  // Only a full listing says which orphans are gone; a failed one tells nothing new.
  if (report.orphans.ok) {
    await notifyNewOrphans(env, orphans, report.at).catch((err: unknown) => {
      console.error(JSON.stringify({ event: "orphan-notices-failed", error: String(err) }));
    });
  }
  // Last: the records the parts above wrote are forwarded by a later sweep, once settled.
  report.audit = await settle(forwardAudit(env, report.at));
  console.log(JSON.stringify({ event: "sweep", cron: controller.cron, report }));
  if (sweepFailed(report)) throw new Error("sweep: a part failed; see the sweep report");
  return report;
}
