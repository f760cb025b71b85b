/**
 * Receipts in R2 (docs/storage.md, "Receipts (R2)"): per environment and scope, what the scope owns (ledger),
 * the writes announced before they were sent (intents) and the last runs. Unknown fields are kept, so an
 * older reader never drops what a newer writer added.
 */
import { z } from "zod";
import { evictionNoteSchema } from "./eviction";
import { holdingSchema } from "./ownership";
import { provenanceSchema } from "./provenance";
import { type RepositoryRef, repositoryRefSchema } from "./repository";
import { runCountsSchema, runTimingsSchema } from "./run-metrics";

export const RECEIPT_VERSION = 1;
export const RUNS_KEPT = 20;

/** What identifies an item a run wrote: shared by ledger entries and intents. */
const itemRecordFields = {
  line: z.string(),
  op: z.string(),
  /** The connection (service configuration) the item was written through. */
  connection: z.string().optional(),
  /**
   * Entries written before connections: the plan's provider block (secret references, never
   * values). Read only to find the configured connection it belongs to; never written any more.
   */
  provider: z.record(z.string(), z.unknown()).optional(),
  /** Resolved params, needed to remove the item after the line left the plan. */
  params: z.record(z.string(), z.string()),
  key: z.string(),
  parent: z.string().nullable(),
  runId: z.string(),
};

export const ledgerEntrySchema = z.looseObject({
  ...itemRecordFields,
  /** Whether the scope created the item, joined its other owners, or found it foreign. */
  holding: holdingSchema.optional(),
  createdAt: z.number().int(),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;

/** Announced in the receipt before the write is sent; removed in the save that records its outcome. */
export const intentSchema = z.looseObject({
  action: z.enum(["create", "remove"]),
  ...itemRecordFields,
  at: z.number().int(),
  /**
   * Written by a version that claims ownership at the parent lock before every write: the claim,
   * not this intent, says whether the scope owns the item, so the upgrade's rebuild never counts it
   * (docs/design.md, "Ownership of shared entries"). Absent on an older version's intents.
   */
  claims: z.literal(true).optional(),
  /**
   * Written by an adoption (docs/design.md, "Adopting existing entries"): the item was there before
   * and the run only changes its ownership, so recovery keeps it (the scope joins it, and records
   * it if present) instead of removing it as a crashed create's. Absent on every other intent.
   */
  adopts: z.literal(true).optional(),
  /**
   * The provider refused this run's create of the item (someone else had made it) or it was never
   * sent, and the claim made for it could not be withdrawn: the scope is named its owner at the
   * lock though it never wrote it. Recovery only leaves such an item, never removes it (the
   * leave's own remove intent carries the mark too); docs/design.md, "Intent recovery".
   */
  refused: z.literal(true).optional(),
  /**
   * The scope lock's number for the put that made this intent durable there (`putIntents`, 0.1.x;
   * absent on intents only ever saved in a receipt, as every one since). A receipt whose
   * `intentsThrough` is at least this number already accounts for the intent (docs/upgrading.md,
   * "Intents kept by scope locks of 0.1.x").
   */
  lockSeq: z.number().int().positive().optional(),
});
export type Intent = z.infer<typeof intentSchema>;

export const runActionSchema = z.enum(["apply", "preview", "destroy", "rollback", "recover"]);
export type RunAction = z.infer<typeof runActionSchema>;

export const errorInfoSchema = z.object({
  code: z.string(),
  message: z.string(),
  detail: z.record(z.string(), z.unknown()).optional(),
  /** Only where it differs from the code's default (shared/errors.ts). */
  retriable: z.boolean().optional(),
});

export const runRecordSchema = z.looseObject({
  id: z.string(),
  action: runActionSchema,
  status: z.enum(["succeeded", "failed"]),
  startedAt: z.number().int(),
  finishedAt: z.number().int(),
  /** Keys this run created, in order: what rollback removes. */
  created: z.array(z.string()),
  /** Where the run came from (docs/design.md, "Provenance"); absent on runs recorded before it was kept. */
  provenance: provenanceSchema.optional(),
  error: errorInfoSchema.optional(),
  skipped: z.string().optional(),
  /** Runs whose provider writes carried some of this run's changes (write combining). */
  combinedBy: z.array(z.string()).optional(),
  /** Where the run's time went up to its recording (runs recorded before these existed have none). */
  timings: runTimingsSchema.optional(),
  counts: runCountsSchema.optional(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

export const receiptSchema = z.looseObject({
  version: z.number().int().min(1),
  /**
   * The repository the scope belongs to (its id is also in the receipt's key). Optional so that
   * receipts written before scopes carried a repository still parse; every write sets it.
   */
  repository: repositoryRefSchema.optional(),
  environment: z.string(),
  scope: z.string(),
  revision: z.number().int().min(0),
  ledger: z.array(ledgerEntrySchema),
  intents: z.array(intentSchema),
  runs: z.array(runRecordSchema),
  /**
   * Every intent a scope lock of 0.1.x numbered up to this (`Intent.lockSeq`) is accounted for by
   * this receipt: resolved, or in `intents`. Written by 0.1.x saves and by the upgrade's drain
   * (workers/upgrade/), which skips what it covers: a save and the lock's drop of its copies are
   * two steps, and resolving a copy again would undo, against a newer ledger, what that save
   * recorded. Runs keep it as it is and compare nothing with it.
   */
  intentsThrough: z.number().int().nonnegative().optional(),
  /** Entries another run's write evicted from this scope (docs/design.md, "Evicting stale scopes"). */
  evictions: z.array(evictionNoteSchema).optional(),
});
export type Receipt = z.infer<typeof receiptSchema>;

export function emptyReceipt(repository: RepositoryRef, environment: string, scope: string): Receipt {
  return {
    version: RECEIPT_VERSION,
    repository: { id: repository.id, name: repository.name },
    environment,
    scope,
    revision: 0,
    ledger: [],
    intents: [],
    runs: [],
  };
}

/** A ledger entry as `GET …/ledger` shows it: with how the scope holds it, read live from its lock. */
export const ledgerEntryViewSchema = ledgerEntrySchema.extend({
  holding: holdingSchema,
  /** Other scopes that own the item now (0 when only this scope wants it). */
  otherOwners: z.number().int().min(0),
  /** Whether the item was there before any scope claimed it (never removed by a scope). */
  foreign: z.boolean(),
});
export type LedgerEntryView = z.infer<typeof ledgerEntryViewSchema>;

export const receiptViewSchema = receiptSchema.extend({ ledger: z.array(ledgerEntryViewSchema) });
export type ReceiptView = z.infer<typeof receiptViewSchema>;
