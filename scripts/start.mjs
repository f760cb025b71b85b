// `npm start`: the whole service on embedded state (local Durable Objects, R2 and queues under
// .wrangler/state), with provider HTTP answered by the emulators so examples/plan.json works offline.
import { spawn } from "node:child_process";
import { ensureSigningKey } from "./dev-vars.mjs";

// Tokens from `npm run token` must verify against the key the instance loads at start.
await ensureSigningKey();

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
  ...process.argv.slice(2),
];
const child = spawn("wrangler", args, { stdio: "inherit", env: process.env });
child.on("exit", (code) => process.exit(code ?? 1));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
