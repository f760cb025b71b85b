/** The receipt store for this Worker's bindings. */
import type { Env } from "../../shared/env";
import { R2ReceiptStore, type R2ReceiptStoreOptions } from "./r2-receipt-store";

export function configuredReceiptStore(env: Env, options: R2ReceiptStoreOptions = {}) {
  return new R2ReceiptStore(env.RECEIPTS, options);
}
