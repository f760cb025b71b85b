/**
 * Short tags of the parent identities a receipt's ledger names, kept in the receipt's R2 metadata
 * so that rebuilding one parent's ownership (docs/design.md, "Ownership of shared entries") reads
 * only the receipts that may name it. A tag is a 32-bit FNV-1a hash: a collision only costs one
 * extra read, since the receipt body is checked before anything is decided from it.
 */

import { identitySpellings } from "../../shared/canonical-identity";

/** More tags than this do not fit R2's custom metadata comfortably: such a receipt is always read. */
const MAX_TAGS = 100;
export const ANY_PARENT = "*";

export function parentTag(identity: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < identity.length; i++) {
    hash ^= identity.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The metadata value: comma-separated tags, or `*` when there are too many to list. */
export function parentTags(parents: Iterable<string | null>): string {
  const tags = new Set<string>();
  for (const parent of parents) if (parent !== null) tags.add(parentTag(parent));
  return tags.size > MAX_TAGS ? ANY_PARENT : [...tags].sort().join(",");
}

/**
 * Whether a receipt whose metadata says `tags` (undefined: written before tags) may name `parent`,
 * under any spelling an earlier version may have stored it by (shared/canonical-identity.ts).
 */
export function mayName(tags: string | undefined, parent: string): boolean {
  if (tags === undefined || tags === ANY_PARENT) return true;
  const listed = tags.split(",");
  return identitySpellings(parent).some((spelling) => listed.includes(parentTag(spelling)));
}
