/**
 * One upgrade pass (docs/upgrading.md, "The upgrade pass"; deleted in 0.4.0): what versions before
 * 0.2.0 wrote in a layout no run reads any more, moved to where runs read it. Run by every sweep and
 * by an admin (`POST /v1/admin/upgrade`). Budgeted and resumable (./upgrade-turn.ts): one budget of
 * scopes for both parts, receipts first; what a pass does not reach the next one takes. Idempotent:
 * every step is conditional and re-checked under the scope lease, and a pass with nothing left to
 * do writes nothing. Receipts first: a lock's intents are merged into the repository-keyed
 * receipt, which must already hold what the scope's key from before 0.2.0 held.
 */
import { drainLegacyIntents } from "./drain-legacy-intents";
import { moveLegacyReceipts } from "./move-legacy-receipts";
import type { UpgradeDeps } from "./upgrade-deps";
import { nothingLeft, type UpgradeReport } from "./upgrade-report";
import { readMark, writeMark } from "./upgrade-turn";

export async function runUpgrade(deps: UpgradeDeps): Promise<UpgradeReport> {
  const before = await readMark(deps.bucket);
  const receipts = await moveLegacyReceipts(deps, before.receipts, deps.budget);
  const intents = await drainLegacyIntents(deps, before.locks, deps.budget - receipts.taken);
  await writeMark(deps.bucket, before, { receipts: receipts.mark, locks: intents.mark });
  return {
    receipts: receipts.report,
    intents: intents.report,
    done: nothingLeft(receipts.report, intents.report),
  };
}
