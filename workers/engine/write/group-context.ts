/**
 * One group write's context: the run's parts and the group's object, built once per group under
 * its parent lease (group-write.ts) and handed whole to the critical section, its read and the
 * lists' capacity, rather than each piece threaded by hand (docs/design.md, "Writing one object's
 * items").
 */
import type { ParentLease } from "../../locks/parent-lock";
import type { Item } from "../plan/item";
import type { Fence } from "./fence";
import type { WriterParts } from "./writer-parts";

export interface GroupContext {
  readonly parts: WriterParts;
  /** The group's first item: its connection and params address the one read and write. */
  readonly first: Item;
  /** The shared object (the parent lock's identity, the first item's parent); null for none. */
  readonly object: string | null;
  /** The parent lease the group is written under; null where the item has no parent lock. */
  readonly lease: ParentLease | null;
  readonly fence: Fence;
}
