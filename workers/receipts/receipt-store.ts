/**
 * The port for receipts (docs/design.md, "Storage"). The R2 implementation writes with conditional puts; a
 * failed condition means another writer intervened and is reported as CONCURRENT_MODIFICATION, never
 * overwritten.
 */
import type { Receipt } from "../../shared/schemas/receipt";
import type { RepositoryRef } from "../../shared/schemas/repository";

/** One scope: a repository (by id; the name is for display), an environment and a scope name. */
export interface ScopeAddress {
  repository: RepositoryRef;
  environment: string;
  scope: string;
}

export interface StoredReceipt {
  receipt: Receipt;
  /**
   * The version read, handed back unchanged to write or remove; null when no receipt exists yet
   * (the next write must create it). Opaque: for a receipt read from its pre-repository key it
   * also says so, and the next write moves it.
   */
  etag: string | null;
}

export interface ScopeSummary {
  repositoryId: number;
  environment: string;
  scope: string;
  entries: number;
  uploadedAt: number;
  /** Tags of the parents its ledger names (parent-tags.ts); undefined when not known. */
  parents?: string;
}

export interface ScopeFilter {
  repositoryId?: number;
  environment?: string;
}

export interface ReceiptStore {
  /** The receipt, or an empty one (etag null) when the scope has none. */
  read(address: ScopeAddress): Promise<StoredReceipt>;
  /** Writes `receipt` (its `repository` is required) if the stored version still equals `etag`. */
  write(receipt: Receipt, etag: string | null): Promise<string>;
  /** Deletes if the stored version still equals `etag`. */
  remove(address: ScopeAddress, etag: string): Promise<void>;
  listScopes(filter?: ScopeFilter): Promise<ScopeSummary[]>;
}
