/** Sweep parts that find nothing: the sweep tests that are about the other parts pass these. */
import type { SweepParts } from "../../workers/sweep/sweep";

export const idleSweepParts: SweepParts = {
  resolveStaleIntents: async () => ({ resolved: 0 }),
  scopesOwningEntries: async () => [],
  orphans: async () => ({ orphans: [], problems: [] }),
};
