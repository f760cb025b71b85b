/**
 * What a written change leaves in the scope's ledger, recorded after the lease and saved with the
 * run's next receipt save (docs/design.md, "Run algorithm").
 */

import type { WriterParts } from "../contracts/writer-parts";
import { recordOf, refOf } from "../plan/item";
import type { Decided } from "../rules/group-decisions";

export function recordOutcome(w: WriterParts, { change, outcome, holding }: Decided): void {
  const { item, action } = change;
  if (action === "remove") {
    w.session.dropLedger(refOf(item));
    return;
  }
  if (!holding) return;
  // A scope that joined an item it already holds keeps its entry (and the run that made it).
  if (holding !== "created" || outcome !== "written") {
    if (w.session.ledgerEntry(refOf(item))) return;
  }
  const record = recordOf(item, w.run.id);
  w.session.addLedger({ ...record, holding, createdAt: w.deps.clock.now() });
}
