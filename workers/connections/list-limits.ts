/**
 * What a connection's `capacity` says of one op's lists (docs/design.md, "Lists at their cap", "A
 * share of each list"): a bare number is the cap (`maxEntries`), as before shares existed; an object
 * sets the cap, the share one scope may hold (`maxEntriesPerScope`) and the share one repository's
 * scopes may hold together (`maxEntriesPerRepository`), each optional. Options are checked here,
 * once: a scope's share larger than its repository's could never be used.
 */
import { z } from "zod";

const countSchema = z.int().min(1).max(100_000);

export const listLimitsSchema = z
  .strictObject({
    /** The most entries the list may hold: lowers the documented cap, or sets one. */
    maxEntries: countSchema.optional(),
    /** The most entries of the list one scope may hold (default: DEFAULT_MAX_ENTRIES_PER_SCOPE on a capped list). */
    maxEntriesPerScope: countSchema.optional(),
    /** The most entries of the list one repository's scopes may hold together (default: none). */
    maxEntriesPerRepository: countSchema.optional(),
  })
  .superRefine((limits, ctx) => {
    const { maxEntries, maxEntriesPerScope: scope, maxEntriesPerRepository: repository } = limits;
    if (scope !== undefined && repository !== undefined && scope > repository)
      ctx.addIssue({
        code: "custom",
        path: ["maxEntriesPerScope"],
        message: `${scope} is above maxEntriesPerRepository (${repository}): one scope could never hold it`,
      });
    for (const [field, share] of [
      ["maxEntriesPerScope", scope],
      ["maxEntriesPerRepository", repository],
    ] as const)
      if (share !== undefined && maxEntries !== undefined && share > maxEntries)
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `${share} is above maxEntries (${maxEntries}): a share is part of the list`,
        });
  });
export type ListLimits = z.infer<typeof listLimitsSchema>;

/** One op's entry in `capacity`: the cap alone (a number), or the cap and the shares. */
export const capacityEntrySchema = z.union([countSchema, listLimitsSchema]);
export type CapacityEntry = z.infer<typeof capacityEntrySchema>;

/** Either form read as limits. */
export function limitsOf(entry: CapacityEntry | undefined): ListLimits {
  if (entry === undefined) return {};
  return typeof entry === "number" ? { maxEntries: entry } : entry;
}
