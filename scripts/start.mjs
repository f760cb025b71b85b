// `npm start`: the whole service on embedded state (local Durable Objects, R2 and queues under
// .wrangler/state), with provider HTTP answered by the emulators so examples/plan.json works offline.
import { spawn } from "node:child_process";
import { exportPKCS8, generateKeyPair } from "jose";
import { DEMO_REPOSITORIES, ensureSigningKey, repositoriesConfigured } from "./dev-vars.mjs";

// Tokens from `npm run token` must verify against the key the instance loads at start.
await ensureSigningKey();

// The demo Google service account's key file (workers/emulators/firebase/demo.ts): a throwaway
// key made at each start, never written to disk; the emulator accepts this account's assertions.
const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const demoGoogleKey = JSON.stringify({
  type: "service_account",
  project_id: "sponson-demo",
  private_key: await exportPKCS8(privateKey),
  client_email: "sponson-demo@sponson-demo.iam.gserviceaccount.com",
  token_uri: "https://oauth2.googleapis.com/token",
});

const port = process.env.PORT ?? "8787";
const args = [
  "dev",
  "--ip",
  "127.0.0.1",
  "--port",
  port,
  "--persist-to",
  process.env.PERSIST_TO ?? ".wrangler/state",
  "--var",
  "EMULATORS:on",
  // The emulated demo tenant's M2M secret (workers/emulators/auth0): a local value, not a secret.
  "--var",
  "AUTH0_CLIENT_SECRET:local-demo-secret",
  // The other demo tenants (workers/emulators/*/demo.ts; examples/all-providers.plan.json).
  "--var",
  "SUPABASE_ACCESS_TOKEN:sbp_local_demo_0000000000000000000000000000",
  "--var",
  `GOOGLE_SERVICE_ACCOUNT_KEY:${demoGoogleKey}`,
  "--var",
  "OKTA_API_TOKEN:00local-demo-okta-api-token",
  "--var",
  "KINDE_CLIENT_SECRET:local-demo-kinde-secret",
  "--var",
  "R2_API_TOKEN:local-demo-r2-api-token",
  "--var",
  "S3_SECRET_ACCESS_KEY:local-demo-s3-secret",
  // One demo repository unless .dev.vars configures its own (scopes belong to a repository).
  ...(repositoriesConfigured() ? [] : ["--var", `SPONSON_REPOSITORIES:${JSON.stringify(DEMO_REPOSITORIES)}`]),
  ...process.argv.slice(2),
];
const child = spawn("wrangler", args, { stdio: "inherit", env: process.env });
child.on("exit", (code) => process.exit(code ?? 1));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
