/**
 * The port for receipts (DESIGN §8). The R2 implementation writes with conditional puts; a failed
 * condition means another writer intervened and is reported as CONCURRENT_MODIFICATION, never
 * overwritten.
 */
import type { Receipt } from "../../shared/schemas/receipt";

export interface StoredReceipt {
  receipt: Receipt;
  /** null when no receipt exists yet: the next write must create it. */
  etag: string | null;
}

export interface ScopeSummary {
  environment: string;
  scope: string;
  entries: number;
  uploadedAt: number;
  /** Tags of the parents its ledger names (parent-tags.ts); undefined when not known. */
  parents?: string;
}

export interface ReceiptStore {
  /** The receipt, or an empty one (etag null) when the scope has none. */
  read(environment: string, scope: string): Promise<StoredReceipt>;
  /** Writes if the stored etag still equals `etag` (null: only if absent); returns the new etag. */
  write(receipt: Receipt, etag: string | null): Promise<string>;
  /** Deletes if the stored etag still equals `etag`. */
  remove(environment: string, scope: string, etag: string): Promise<void>;
  listScopes(environment?: string): Promise<ScopeSummary[]>;
}
