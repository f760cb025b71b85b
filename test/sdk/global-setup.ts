/** Starts the emulators-only Worker (dev/emulators/server.ts) for the vendor-SDK suite. */
import type { TestProject } from "vitest/node";
import { startWranglerDev } from "../support/wrangler-dev";

const READY_TIMEOUT_MS = 120_000;

declare module "vitest" {
  export interface ProvidedContext {
    emulatorsUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startWranglerDev({
    name: "sdk",
    vars: {},
    config: "dev/emulators/wrangler.toml",
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  project.provide("emulatorsUrl", server.url);
  return server.stop;
}
