// `npm run -s webhook -- closed|reopened --pr <n> [--url …] [--secret …] [--repository owner/name]
//   [--repository-id <id>] [--delivery <id>] [--updated-at <ISO time>]`
// Sends a signed GitHub `pull_request` event (scripts/github-event.mjs: a real example payload) to
// a running instance, by default the local one `npm start` serves, with the checkout's
// GITHUB_WEBHOOK_SECRET from .dev.vars. Prints the delivery id on stderr and the answer on stdout.
// Exit 0 when the instance accepted the delivery (2xx), 1 when it refused it, 2 on a usage error.
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEV_VARS, readDevVar } from "./dev-vars.mjs";
import { DEMO_REPOSITORY } from "./dev-webhook.mjs";
import { ACTIONS, deliveryHeaders, pullRequestPayload } from "./github-event.mjs";
import { localInstance } from "./start-state.mjs";

const USAGE = `Usage: npm run webhook -- closed|reopened --pr <n> [options]  (add -s after run for quiet output)

Sends a signed GitHub pull_request event, built on the example payload of
@octokit/webhooks-examples, to a running Sponson Edge.

  --pr <n>               the pull request: its scope is pr-<n> (required)
  --url <url>            the instance (default $SPONSON_URL, else http://127.0.0.1:$PORT, else
                         where this checkout's running npm start listens, else :8787)
  --secret <secret>      the webhook secret (default $GITHUB_WEBHOOK_SECRET, else
                         GITHUB_WEBHOOK_SECRET from ${DEV_VARS}, which npm start creates)
  --repository <o/name>  the repository (default ${DEMO_REPOSITORY.name})
  --repository-id <id>   its id (default: from SPONSON_REPOSITORIES in ${DEV_VARS}, or ${DEMO_REPOSITORY.id} for the demo)
  --delivery <id>        X-GitHub-Delivery (default: a new UUID); reuse one to redeliver it
  --updated-at <time>    pull_request.updated_at, the scope's revision (default: now)
`;

function usage(message) {
  process.stderr.write(`webhook: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      pr: { type: "string" },
      url: { type: "string" },
      secret: { type: "string" },
      repository: { type: "string" },
      "repository-id": { type: "string" },
      delivery: { type: "string" },
      "updated-at": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
} catch (err) {
  usage(err.message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const [action, ...extra] = positionals;
if (!ACTIONS.includes(action) || extra.length > 0) usage(`the action must be one of ${ACTIONS.join(", ")}`);
const pr = Number(values.pr);
if (!Number.isInteger(pr) || pr <= 0) usage("--pr must be a pull request number");

const devVars = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
const secret =
  values.secret ?? process.env.GITHUB_WEBHOOK_SECRET ?? readDevVar(devVars, "GITHUB_WEBHOOK_SECRET");
if (!secret)
  usage(`no webhook secret: pass --secret, or run \`npm start\` once to create one in ${DEV_VARS}`);
// PORT as npm start takes it, else the port the running `npm start` of this checkout was given
// (the rule the CLI follows too: scripts/start-state.mjs).
const url = (values.url ?? process.env.SPONSON_URL ?? localInstance().url).replace(/\/+$/, "");

const repository = repositoryOf(values.repository ?? DEMO_REPOSITORY.name, values["repository-id"]);
let updatedAt;
if (values["updated-at"] !== undefined) {
  const ms = Date.parse(values["updated-at"]);
  if (Number.isNaN(ms)) usage("--updated-at must be an ISO 8601 time, e.g. 2026-05-15T15:21:18Z");
  updatedAt = new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

function repositoryOf(name, idArg) {
  if (!/^[^/\s]+\/[^/\s]+$/.test(name)) usage("--repository must be owner/name");
  if (idArg !== undefined) {
    const id = Number(idArg);
    if (!Number.isInteger(id) || id <= 0) usage("--repository-id must be a positive integer");
    return { name, id };
  }
  const configured = configuredRepositories().find((r) => r.name?.toLowerCase() === name.toLowerCase());
  if (configured && Number.isInteger(configured.id)) return { name, id: configured.id };
  if (name.toLowerCase() === DEMO_REPOSITORY.name.toLowerCase()) return { ...DEMO_REPOSITORY };
  usage(`--repository-id is needed: ${name} is not in SPONSON_REPOSITORIES in ${DEV_VARS}`);
}

function configuredRepositories() {
  const raw = readDevVar(devVars, "SPONSON_REPOSITORIES");
  if (!raw) return [];
  try {
    const list = JSON.parse(raw);
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

const { body } = pullRequestPayload({ action, pr, repository, ...(updatedAt ? { updatedAt } : {}) });
const headers = await deliveryHeaders(secret, body, values.delivery);
process.stderr.write(
  `webhook: pull_request ${action} #${pr} of ${repository.name}, delivery ${headers["x-github-delivery"]} → ${url}/v1/webhooks/github\n`,
);
let res;
try {
  res = await fetch(`${url}/v1/webhooks/github`, { method: "POST", headers, body });
} catch (err) {
  process.stderr.write(
    `webhook: ${url} cannot be reached (${err.cause?.code ?? err.message}); is npm start running?\n`,
  );
  process.exit(1);
}
// The answer on stdout (JSON, for jq), its status on stderr.
process.stderr.write(`webhook: HTTP ${res.status}\n`);
process.stdout.write(`${await res.text()}\n`);
process.exit(res.ok ? 0 : 1);
