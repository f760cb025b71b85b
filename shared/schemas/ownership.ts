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

/**
 * How many of an op's items on the object each owner holds, and each repository's scopes hold
 * together (an item two of its scopes share counts once): what the shares of a list are checked
 * against under the lease (docs/design.md, "A share of each list"). Counts only.
 */
export const ownershipSharesSchema = z.object({
  owners: z.array(z.object({ op: z.string(), owner: z.string(), entries: z.number().int() })),
  repositories: z.array(
    z.object({ op: z.string(), repositoryId: z.number().int(), entries: z.number().int() }),
  ),
});
export type OwnershipShares = z.infer<typeof ownershipSharesSchema>;

export const ownershipViewSchema = z.object({
  /** False until the first holder after an upgrade rebuilt ownership from the receipts' ledgers. */
  rebuilt: z.boolean(),
  /** Ops whose list on this object has been looked at once (their present, unowned items marked foreign). */
  listedOps: z.array(z.string()),
  items: z.array(itemOwnershipSchema),
  /**
   * The shares of the ops of `items` (the holder's reads and grants; absent from an ownership
   * change's answer, and from an object of the version before).
   */
  shares: ownershipSharesSchema.optional(),
});
export type OwnershipView = z.infer<typeof ownershipViewSchema>;

/**
 * What an ownership change answers: the changed items' ownership, and the lease's expiry, since
 * the change renews the lease in the same call (docs/design.md, "Lease protocol").
 */
export const ownerChangeAnswerSchema = ownershipViewSchema.extend({ expiresAt: z.number().int() });
export type OwnerChangeAnswer = z.infer<typeof ownerChangeAnswerSchema>;

export const ownerChangeSchema = z.discriminatedUnion("action", [
  ownedItemSchema.extend({ action: z.enum(["add", "remove"]), owner: z.string() }),
  ownedItemSchema.extend({ action: z.enum(["foreign", "not-foreign"]) }),
]);
export type OwnerChange = z.infer<typeof ownerChangeSchema>;

/**
 * Where one op's list lives on the object: the connection and the params of an item of it (non-
 * secret; the same params the ledger keeps). The sweep lists the object through it to find orphans.
 */
export const locatorSchema = z.object({
  op: z.string(),
  connection: z.string(),
  params: z.record(z.string(), z.string()),
});
export type Locator = z.infer<typeof locatorSchema>;

/** Everything an object's lock knows about its items, read without a lease (views, the sweep). */
export const ownershipRecordSchema = z.object({
  items: z.array(itemOwnershipSchema),
  locators: z.array(locatorSchema),
});
export type OwnershipRecord = z.infer<typeof ownershipRecordSchema>;

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

/** The scope an owner names (the inverse of `ownerOf`), or null for a name it never wrote. */
export function scopeOfOwner(
  owner: string,
): { repositoryId: number; environment: string; scope: string } | null {
  const m = /^([1-9][0-9]*)\/([^/]+)\/(.+)$/.exec(owner);
  if (!m) return null;
  return { repositoryId: Number(m[1]), environment: m[2] as string, scope: m[3] as string };
}
