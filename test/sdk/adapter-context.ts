/**
 * Our adapters run in Node too (fetch, jose, aws4fetch, zod): the SDK suite drives them through the
 * same origin-rewriting fetch as the SDKs, so an SDK reads what an adapter wrote and an adapter
 * reads what an SDK wrote, against one emulator.
 */
import { SecretRegistry } from "../../shared/secrets";
import type { OpContext, ProviderAdapter } from "../../workers/adapters/op-spec";
import { StepClock } from "../helpers/clock";
import { emulatorFetch } from "./emulators";

export function adapterContext(adapter: ProviderAdapter, config: unknown): OpContext {
  return {
    config: adapter.config.parse(config),
    fetch: emulatorFetch,
    clock: new StepClock(),
    secrets: new SecretRegistry(),
  };
}

export function opOf(adapter: ProviderAdapter, name: string) {
  const op = adapter.ops.find((o) => o.name === name);
  if (!op) throw new Error(`no op ${name}`);
  return op;
}
