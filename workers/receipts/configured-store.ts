/** The receipt store for this Worker's bindings and configuration (legacy receipts: see r2-receipt-store.ts). */
import type { Env } from "../../shared/env";
import { configFromEnv } from "../config/config";
import { legacyRepository } from "../repositories/configured";
import { R2ReceiptStore, type R2ReceiptStoreOptions } from "./r2-receipt-store";

export function configuredReceiptStore(
  env: Env,
  options: Omit<R2ReceiptStoreOptions, "legacyRepositoryId"> = {},
) {
  const legacy = legacyRepository(configFromEnv(env).repositories);
  return new R2ReceiptStore(env.RECEIPTS, {
    ...options,
    ...(legacy === undefined ? {} : { legacyRepositoryId: legacy.id }),
  });
}
