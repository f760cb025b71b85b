// `npm start`: the whole service on embedded state (local Durable Objects, R2 and queues under
// .wrangler/state), with provider HTTP answered by the emulators so examples/plan.json works offline.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { exportPKCS8, generateKeyPair } from "jose";
import { localAccessEnv } from "./dev-access.mjs";
import { localFederationEnv } from "./dev-federation.mjs";
import { localPlatformSetup } from "./dev-platforms.mjs";
import { ensureSigningKey } from "./dev-vars.mjs";
import { localWebhookSetup } from "./dev-webhook.mjs";
import { removeStartFiles, writeStartEnv, writeStartState } from "./start-env.mjs";

const USAGE = `Usage: npm start [-- <wrangler dev options>]

Serves the whole service at http://127.0.0.1:8787 with \`wrangler dev\` on the dev entry
(wrangler.dev.toml: the production Worker plus the provider emulators), with local Durable
Objects, R2 and queues. Creates .dev.vars with a service signing key on first use
(\`npm run token\` signs with it) and a federation key ring (the local issuer
https://sponson.localhost that keyless connections sign with).

Environment:
  PORT        port to listen on (default 8787)
  PERSIST_TO  directory of the local state (default .wrangler/state)

Options after \`--\` go to \`wrangler dev\`, e.g. npm start -- --inspector-port 9230
`;

// Before anything is generated or started: --help only prints.
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}

// Tokens from `npm run token` must verify against the key the instance loads at start.
await ensureSigningKey({ starting: true });

// The demo Google service account's key file (dev/emulators/firebase/demo.ts): a throwaway
// key made at each start, never written to disk; the emulator accepts this account's assertions.
const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const demoGoogleKey = JSON.stringify({
  type: "service_account",
  project_id: "sponson-demo",
  private_key: await exportPKCS8(privateKey),
  client_email: "sponson-demo@sponson-demo.iam.gserviceaccount.com",
  token_uri: "https://oauth2.googleapis.com/token",
});

// The demo connections (service configuration, never the plan): which provider account each
// plan line may reach and which Worker secret fills its credentials.
const connections = JSON.stringify(
  JSON.parse(await readFile(new URL("../examples/connections.local.json", import.meta.url), "utf8")),
);

// The write policy, as production has one (docs/security.md, "Write policy"): the demo tenants'
// objects and the production example's items (Vercel previews included), so a plan line is
// admitted here exactly when the production example would admit it (test/repo/preview-policy.test.ts).
// A SPONSON_POLICY in .dev.vars replaces it.
const policy = JSON.stringify(
  JSON.parse(await readFile(new URL("../examples/policy.local.json", import.meta.url), "utf8")),
);

const port = process.env.PORT ?? "8787";

// Webhooks on the local door: the checkout's secret in .dev.vars, and the demo repository unless
// SPONSON_REPOSITORIES is configured (scripts/dev-webhook.mjs).
const webhooks = localWebhookSetup(port, process.argv.slice(2));
for (const line of webhooks.lines) process.stderr.write(`${line}\n`);

// The platform door (scripts/dev-platforms.mjs): a demo Vercel project and a demo Netlify site
// bound to the demo repository, their secrets in .dev.vars.
const platforms = localPlatformSetup(port);
for (const line of platforms.lines) process.stderr.write(`${line}\n`);

// Cloudflare Access sign-in through the local issuer (scripts/dev-access.mjs): its key lands in
// .dev.vars first, so the env file below carries it with SPONSON_ACCESS.
const accessEnv = await localAccessEnv();

// Keyless connections (auth0-federated, okta-federated) sign with the local federation issuer
// (scripts/dev-federation.mjs): its key ring lands in .dev.vars first, like the Access key.
const federationEnv = await localFederationEnv();

// Secrets and the demo configuration go through an owner-only env file, never the command line
// (`ps` shows every process's arguments to every user); .dev.vars is merged into it and wins.
const envFile = writeStartEnv({
  SPONSON_CONNECTIONS: connections,
  SPONSON_POLICY: policy,
  // The emulated demo tenant's M2M secret (dev/emulators/auth0): a local value, not a secret.
  AUTH0_CLIENT_SECRET: "local-demo-secret",
  // The other demo tenants (dev/emulators/*/demo.ts; examples/all-providers.plan.json).
  SUPABASE_ACCESS_TOKEN: "sbp_local_demo_0000000000000000000000000000",
  GOOGLE_SERVICE_ACCOUNT_KEY: demoGoogleKey,
  OKTA_API_TOKEN: "00local-demo-okta-api-token",
  KINDE_CLIENT_SECRET: "local-demo-kinde-secret",
  R2_API_TOKEN: "local-demo-r2-api-token",
  S3_SECRET_ACCESS_KEY: "local-demo-s3-secret",
  ENTRA_CLIENT_SECRET: "local-demo-entra-secret",
  COGNITO_SECRET_ACCESS_KEY: "local-demo-cognito-secret",
  KEYCLOAK_CLIENT_SECRET: "local-demo-keycloak-secret",
  CLERK_SECRET_KEY: "sk_test_localdemoclerksecretkey0000",
  TURNSTILE_API_TOKEN: "local-demo-turnstile-api-token",
  ...webhooks.vars,
  ...platforms.vars,
  ...accessEnv,
  ...federationEnv,
});
// `npm run webhook` sends to the port this start listens on (scripts/webhook.mjs).
writeStartState(port);

const args = [
  "dev",
  // The dev entry: the production Worker with the provider emulators (wrangler.dev.toml).
  "--config",
  "wrangler.dev.toml",
  "--ip",
  "127.0.0.1",
  "--port",
  port,
  "--persist-to",
  process.env.PERSIST_TO ?? ".wrangler/state",
  ...envFile,
  ...process.argv.slice(2),
];
const child = spawn("wrangler", args, { stdio: "inherit", env: process.env });
child.on("exit", (code) => {
  removeStartFiles();
  process.exit(code ?? 1);
});
child.on("error", (err) => {
  removeStartFiles();
  process.stderr.write(`start: cannot run wrangler (${err.code ?? err.message}); run it as \`npm start\`\n`);
  process.exit(1);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
