/**
 * Node-side CLI suite setup: bundle the CLI, start the whole service with `wrangler dev`
 * (test/support/wrangler-dev.ts) with a signing key and a webhook secret made for this run and
 * the demo repository `npm start` serves, and stop it at the end.
 */
import { randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair } from "jose";
import type { TestProject } from "vitest/node";
import { buildCli } from "../../cli/build.mjs";
import { demoPlatforms } from "../../scripts/dev-platforms.mjs";
import { DEMO_REPOSITORY } from "../../scripts/dev-webhook.mjs";
import { startWranglerDev } from "../support/wrangler-dev";

const READY_TIMEOUT_MS = 120_000;

declare module "vitest" {
  export interface ProvidedContext {
    sponsonUrl: string;
    signingKey: string;
    audience: string;
    webhookSecret: string;
    vercelSecret: string;
  }
}

/** npm start's demo Vercel connection, signed with `secret`; its Netlify one needs an environment of its own. */
function localPlatformSetupFor(secret: string) {
  const [vercel] = demoPlatforms();
  return {
    vars: {
      SPONSON_PLATFORMS: JSON.stringify([vercel]),
      VERCEL_WEBHOOK_SECRET_DEMO: secret,
      VERCEL_TOKEN_DEMO: "vercel_sponson-local-demo",
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildCli();
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const signingKey = JSON.stringify(await exportJWK(privateKey));
  const audience = "https://sponson.cli.test";
  const webhookSecret = randomBytes(32).toString("hex");
  // The demo Vercel project npm start connects (scripts/dev-platforms.mjs), for npm run platform-event.
  const vercelSecret = randomBytes(32).toString("hex");
  const { vars: platformVars } = localPlatformSetupFor(vercelSecret);
  const server = await startWranglerDev({
    name: "cli",
    vars: {
      SERVICE_SIGNING_KEY: signingKey,
      SPONSON_AUDIENCE: audience,
      GITHUB_WEBHOOK_SECRET: webhookSecret,
      SPONSON_REPOSITORIES: JSON.stringify([DEMO_REPOSITORY]),
      ...platformVars,
    },
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  project.provide("sponsonUrl", server.url);
  project.provide("signingKey", signingKey);
  project.provide("audience", audience);
  project.provide("webhookSecret", webhookSecret);
  project.provide("vercelSecret", vercelSecret);
  return server.stop;
}
