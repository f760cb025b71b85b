/** The lease object's RPC surface (durable-objects/lease-lock.ts implements it). */
import type { Result } from "../errors";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../schemas/lock";
import type { Locator, OwnedItem, OwnerChange, OwnershipRecord, OwnershipView } from "../schemas/ownership";

export interface AcquireRequest {
  key: string;
  holder: string;
  ttlMs: number;
  identity?: string | null;
  wait?: boolean;
  waitTimeoutMs?: number;
  /** Shortens the claim window of a grant to this waiter (lease-rules.ts CLAIM_WINDOW_MS). */
  claimWindowMs?: number;
}

export interface LeaseLockApi {
  acquire(req: AcquireRequest): Promise<Result<LeaseGrant>>;
  claim(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>>;
  renew(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>>;
  release(req: { key: string; holder: string; token: number }): Promise<Result<ReleaseOutcome>>;
  forceRelease(req: { key: string; reason: string; actor: string }): Promise<Result<ReleaseOutcome>>;
  read(req: { key: string }): Promise<LockState>;
  owners(req: {
    key: string;
    holder: string;
    token: number;
    items: OwnedItem[];
  }): Promise<Result<OwnershipView>>;
  changeOwners(req: {
    key: string;
    holder: string;
    token: number;
    changes: OwnerChange[];
    rebuilt?: boolean;
    locator?: Locator;
  }): Promise<Result<OwnershipView>>;
  ownership(req: { key: string }): Promise<OwnershipRecord>;
}
