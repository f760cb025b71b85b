/**
 * Ownership of the items on one shared provider object (docs/design.md, "Ownership of shared
 * entries"): which scopes want each item, and whether it was there before any scope claimed it
 * (foreign). Kept in the object's own lock, changed only by the holder of its current lease.
 */
import { z } from "zod";

/** An item of the object: the op that manages it (one object holds several lists) and its key. */
export const ownedItemSchema = z.object({ op: z.string(), key: z.string() });
export type OwnedItem = z.infer<typeof ownedItemSchema>;

export const itemOwnershipSchema = ownedItemSchema.extend({
  /** Owning scopes, as `ownerOf` names them, sorted. */
  owners: z.array(z.string()),
  foreign: z.boolean(),
});
export type ItemOwnership = z.infer<typeof itemOwnershipSchema>;

export const ownershipViewSchema = z.object({
  /** False until the first holder after an upgrade rebuilt ownership from the receipts' ledgers. */
  rebuilt: z.boolean(),
  items: z.array(itemOwnershipSchema),
});
export type OwnershipView = z.infer<typeof ownershipViewSchema>;

export const ownerChangeSchema = z.discriminatedUnion("action", [
  ownedItemSchema.extend({ action: z.enum(["add", "remove"]), owner: z.string() }),
  ownedItemSchema.extend({ action: z.enum(["foreign", "not-foreign"]) }),
]);
export type OwnerChange = z.infer<typeof ownerChangeSchema>;

/** How a scope holds an entry of its ledger. Absent on entries written before ownership existed. */
export const holdingSchema = z.enum(["created", "shared", "foreign"]);
export type Holding = z.infer<typeof holdingSchema>;

/**
 * How ownership names a scope: one repository's scope in one environment is one owner, keyed by
 * the repository's id like every other scope key (`pr-5` of two repositories are two owners).
 */
export function ownerOf(scope: { repository: { id: number }; environment: string; scope: string }): string {
  return `${scope.repository.id}/${scope.environment}/${scope.scope}`;
}
