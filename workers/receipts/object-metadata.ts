/**
 * The custom metadata R2 keeps beside each receipt object. Listing scopes reads only this (R2 returns
 * it with `list({ include: ["customMetadata"] })`), so `GET /v1/scopes` never downloads a receipt.
 * R2 custom metadata is string → string; numbers are written as decimal strings and validated back.
 */
import { z } from "zod";
import type { Receipt } from "../../shared/schemas/receipt";
import { parentTags } from "./parent-tags";

const count = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,9})$/)
  .transform(Number);

export const receiptMetadataSchema = z.object({
  kind: z.literal("receipt"),
  version: count,
  revision: count,
  entries: count,
  intents: count,
  /** Tags of the parents the ledger and intents name (parent-tags.ts); absent on older receipts. */
  parents: z
    .string()
    .regex(/^(\*|[0-9a-f]{8}(,[0-9a-f]{8})*)?$/)
    .optional(),
  /** Milliseconds since the epoch, from the store's clock at write time. */
  updatedAt: z
    .string()
    .regex(/^[0-9]{1,16}$/)
    .transform(Number),
});

export const tombstoneMetadataSchema = z.object({
  kind: z.literal("tombstone"),
  removedAt: z
    .string()
    .regex(/^[0-9]{1,16}$/)
    .transform(Number),
});

export const objectMetadataSchema = z.discriminatedUnion("kind", [
  receiptMetadataSchema,
  tombstoneMetadataSchema,
]);
export type ObjectMetadata = z.infer<typeof objectMetadataSchema>;

export function receiptMetadata(receipt: Receipt, now: number): Record<string, string> {
  return {
    kind: "receipt",
    version: String(receipt.version),
    revision: String(receipt.revision),
    entries: String(receipt.ledger.length),
    intents: String(receipt.intents.length),
    parents: parentTags([...receipt.ledger, ...receipt.intents].map((e) => e.parent)),
    updatedAt: String(now),
  };
}

export function tombstoneMetadata(now: number): Record<string, string> {
  return { kind: "tombstone", removedAt: String(now) };
}

/** The validated metadata, or null when it is missing or not ours (the caller falls back to the body). */
export function parseObjectMetadata(metadata: Record<string, string> | undefined): ObjectMetadata | null {
  const parsed = objectMetadataSchema.safeParse(metadata ?? {});
  return parsed.success ? parsed.data : null;
}

export function isTombstone(metadata: Record<string, string> | undefined): boolean {
  return metadata?.kind === "tombstone";
}

/**
 * The body of a tombstone. `removeId` makes every tombstone's bytes — and so its etag, which R2
 * derives from the content — unique: no stale etag from an earlier tombstone can ever match it.
 */
export function tombstoneBody(environment: string, scope: string, now: number): string {
  return JSON.stringify({
    tombstone: true,
    environment,
    scope,
    removedAt: now,
    removeId: crypto.randomUUID(),
  });
}
