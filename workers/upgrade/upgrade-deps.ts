/**
 * What the upgrade works with (workers/upgrade/): the receipts bucket (the pending-intents index
 * and the keys written before repositories), the repository-keyed receipt store, the scope locks,
 * the configured repositories, the scope lease's settings and the pass's budget. Built from the
 * Worker's bindings in one place; tests wrap a part to make a step fail. Deleted in 0.4.0.
 */
import type { Env } from "../../shared/env";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { configFromEnv } from "../config/config";
import { type LeaseSettings, leaseOptions } from "../locks/lease-options";
import { type LockTarget, lockTarget } from "../locks/lock-target";
import { R2ReceiptStore } from "../receipts/r2-receipt-store";
import type { ReceiptStore } from "../receipts/receipt-store";
import { UPGRADE_BUDGET } from "./upgrade-turn";

export interface UpgradeDeps {
  bucket: R2Bucket;
  store: ReceiptStore;
  /** A scope lock by its key. */
  lock: (key: string) => LockTarget;
  repositories: readonly RepositoryConfig[];
  /** Each scope lease the upgrade takes: never waits (a busy scope is skipped for the next pass). */
  lease: LeaseSettings;
  /** Scopes one pass takes at most (UPGRADE_BUDGET). */
  budget: number;
  now: () => number;
}

export function upgradeDeps(env: Env): UpgradeDeps {
  const config = configFromEnv(env);
  return {
    bucket: env.RECEIPTS,
    store: new R2ReceiptStore(env.RECEIPTS),
    lock: (key) => lockTarget(env, key),
    repositories: config.repositories,
    lease: leaseOptions({ ttlMs: config.leaseTtlSeconds * 1000, wait: false }),
    budget: UPGRADE_BUDGET,
    now: Date.now,
  };
}
