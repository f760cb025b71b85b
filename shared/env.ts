import type { LeaseLock } from "../durable-objects/lease-lock";
import type { ProviderEmulator } from "../durable-objects/provider-emulator";

/** Bindings of the Worker and its objects (wrangler.toml). */
export interface Env {
  LEASE_LOCK: DurableObjectNamespace<LeaseLock>;
  RECEIPTS: R2Bucket;
  LEASE_TTL_SECONDS?: string;
  WAIT_TIMEOUT_SECONDS?: string;
  /** Emulated provider hosts, one object per host (tests and `npm start` only). */
  PROVIDER_EMULATOR: DurableObjectNamespace<ProviderEmulator>;
  /** "on" routes provider HTTP to the emulators; never set in production config. */
  EMULATORS?: string;
  /** Any other var or secret (provider credentials are read by name from the plan's references). */
  [name: string]: unknown;
}
