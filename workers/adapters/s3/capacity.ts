/**
 * S3's caps on a bucket's CORS configuration (docs/adapters.md, "Capacity"): 100 rules, whatever
 * their origins, and 64 KB for the document PUT sends. Measured on the rules under the lease, so
 * the check before a write (docs/design.md, "Lists at their cap") refuses what S3 would refuse.
 */
import { z } from "zod";
import type { CapacityMeasure, ListCapacity } from "../op-spec";
import { type S3CorsRule, serializeCorsXml } from "./cors-xml";

const stateSchema = z.object({ rules: z.array(z.any()) });

function measure(state: unknown): CapacityMeasure {
  const rules = stateSchema.parse(state).rules as S3CorsRule[];
  // The very document the write sends (bucket-cors-api.ts), in bytes as S3 counts them.
  return {
    entries: rules.length,
    bytes: new TextEncoder().encode(serializeCorsXml(rules)).length,
    // The LIST_FULL answer's owners: every rule's origins (an item is an origin in a rule).
    keys: [...new Set(rules.flatMap((r) => r.AllowedOrigin))],
  };
}

export const S3_CAPACITY: ListCapacity = {
  maxEntries: 100,
  counts: "CORS rules of the bucket",
  // Ownership is per origin (an origin is the item), so who holds the bucket is counted in
  // origins: removing a scope's origins frees a rule only when they were all the rule had.
  owners: { counts: "origins", frees: "a rule goes only when its last origin does" },
  maxDocumentBytes: 65_536,
  measure,
};
