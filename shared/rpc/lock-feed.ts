/** The dashboard lock feed's RPC surface (durable-objects/lock-feed.ts implements it). */

/** The one feed; sharding by key prefix is possible later without changing the lock objects' call. */
export const LOCK_FEED_NAME = "dashboard";

export type LockChange = "held" | "free" | "waiters";

export interface LockFeedApi {
  changed(key: string, change: LockChange): Promise<number>;
}
