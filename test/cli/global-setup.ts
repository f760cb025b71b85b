/**
 * Node-side CLI suite setup: bundle the CLI, start the whole service with `wrangler dev`
 * (test/support/wrangler-dev.ts) with a signing key made for this run, and stop it at the end.
 */
import { exportJWK, generateKeyPair } from "jose";
import type { TestProject } from "vitest/node";
import { buildCli } from "../../cli/build.mjs";
import { startWranglerDev } from "../support/wrangler-dev";

const READY_TIMEOUT_MS = 120_000;

declare module "vitest" {
  export interface ProvidedContext {
    sponsonUrl: string;
    signingKey: string;
    audience: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildCli();
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const signingKey = JSON.stringify(await exportJWK(privateKey));
  const audience = "https://sponson.cli.test";
  const server = await startWranglerDev({
    name: "cli",
    vars: { SERVICE_SIGNING_KEY: signingKey, SPONSON_AUDIENCE: audience },
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  project.provide("sponsonUrl", server.url);
  project.provide("signingKey", signingKey);
  project.provide("audience", audience);
  return server.stop;
}
