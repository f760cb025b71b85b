/**
 * One group write's context: the run's parts and the group's object, built once per group under
 * its parent lease (write/group-write.ts) and handed whole to the critical section, its read and the
 * lists' capacity, rather than each piece threaded by hand (docs/design.md, "Writing one object's
 * items").
 */
import type { OwnedItem, OwnershipView } from "../../../shared/schemas/ownership";
import type { Lease } from "../../locks/lease";
import type { ParentLease } from "../../locks/parent-lock";
import type { Item } from "../plan/item";
import type { WriterParts } from "./writer-parts";

/**
 * What the layers below the group write ask of its fence (write/fence.ts `Fence`, which the group
 * write itself uses whole: `GroupContext<Fence>`).
 */
export interface GroupFence {
  /** The ownership of `items`: the first read under the lease may be the view its grant carried. */
  owners(items: OwnedItem[]): Promise<OwnershipView>;
  /** An evicted scope's lease joins the fence while held (docs/design.md, "Evicting stale scopes"). */
  guard(lease: Lease): void;
  unguard(lease: Lease): void;
}

export interface GroupContext<F extends GroupFence = GroupFence> {
  readonly parts: WriterParts;
  /** The group's first item: its connection and params address the one read and write. */
  readonly first: Item;
  /** The shared object (the parent lock's identity, the first item's parent); null for none. */
  readonly object: string | null;
  /** The parent lease the group is written under; null where the item has no parent lock. */
  readonly lease: ParentLease | null;
  readonly fence: F;
}
