import type { LeaseLock } from "../durable-objects/lease-lock";

/** Bindings of the Worker and its objects (wrangler.toml). */
export interface Env {
  LEASE_LOCK: DurableObjectNamespace<LeaseLock>;
  RECEIPTS: R2Bucket;
  LEASE_TTL_SECONDS?: string;
  WAIT_TIMEOUT_SECONDS?: string;
}
