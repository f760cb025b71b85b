// The local instance's webhook side, so a pull request can be closed on the local door:
// - GITHUB_WEBHOOK_SECRET: random, generated once per checkout into .dev.vars (gitignored), like
//   the signing key. It only ever authenticates deliveries to this local instance.
// - SPONSON_REPOSITORIES: when nothing configures it, the repository every pull_request example
//   of @octokit/webhooks-examples belongs to, so `npm run webhook` works without editing anything.
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { DEV_VARS, readDevVar } from "./dev-vars.mjs";

export const DEMO_REPOSITORY = { name: "Codertocat/Hello-World", id: 186853002 };

function devVarsText() {
  return existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
}

/** The checkout's local webhook secret, generated into .dev.vars on first use. */
export function ensureWebhookSecret() {
  const text = devVarsText();
  const existing = readDevVar(text, "GITHUB_WEBHOOK_SECRET");
  if (existing) return existing;
  const secret = randomBytes(32).toString("hex");
  const separator = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  appendFileSync(DEV_VARS, `${separator}GITHUB_WEBHOOK_SECRET=${secret}\n`, { mode: 0o600 });
  return secret;
}

/** Where SPONSON_REPOSITORIES is already set for `wrangler dev`, if anywhere. */
function configuredRepositoriesSource(argv) {
  if (readDevVar(devVarsText(), "SPONSON_REPOSITORIES")) return DEV_VARS;
  for (const file of ["wrangler.toml", "wrangler.dev.toml"]) {
    if (existsSync(file) && /^\s*SPONSON_REPOSITORIES\s*=/m.test(readFileSync(file, "utf8"))) return file;
  }
  if (argv.some((arg) => arg.startsWith("SPONSON_REPOSITORIES:"))) return "the command line";
  return null;
}

/**
 * The vars `npm start` adds for webhooks (none when the repositories are configured
 * elsewhere) and the lines it prints. The secret's value is never printed: start logs end up
 * pasted into issues, and the one tool that needs it (`npm run webhook`) reads .dev.vars itself.
 */
export function localWebhookSetup(port, argv) {
  ensureWebhookSecret();
  const source = configuredRepositoriesSource(argv);
  const lines = [
    `webhooks: POST http://127.0.0.1:${port}/v1/webhooks/github, signed with GITHUB_WEBHOOK_SECRET from ${DEV_VARS} (made for this checkout, local only)`,
  ];
  if (source !== null) {
    lines.push(`webhooks: repositories from SPONSON_REPOSITORIES in ${source}`);
    return { vars: {}, lines };
  }
  lines.push(
    `webhooks: demo repository ${DEMO_REPOSITORY.name} (id ${DEMO_REPOSITORY.id}), the one of @octokit/webhooks-examples' payloads; set SPONSON_REPOSITORIES in ${DEV_VARS} to serve others`,
    "webhooks: close a pull request with `npm run -s webhook -- closed --pr 2`",
  );
  return { vars: { SPONSON_REPOSITORIES: JSON.stringify([DEMO_REPOSITORY]) }, lines };
}
