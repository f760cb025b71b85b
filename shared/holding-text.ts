/** How a scope holds an entry of its ledger, in the words the dashboard and the CLI both show. */
import type { LedgerEntryView } from "./schemas/receipt";

export function holdingText(entry: Pick<LedgerEntryView, "holding" | "otherOwners" | "foreign">): string {
  if (entry.foreign) return "foreign";
  if (entry.otherOwners === 0) return entry.holding === "shared" ? "shared (now alone)" : entry.holding;
  return `${entry.holding === "created" ? "created, " : ""}shared with ${entry.otherOwners}`;
}
