// `npm run -s platform-event -- vercel|netlify <event> --pr <n> [options]`
// Sends a signed platform deploy event to a running instance, by default the local one `npm start`
// serves, signed with the checkout's demo secret from .dev.vars (scripts/dev-platforms.mjs). For
// Vercel it first tells the emulated Vercel API about the deployment (what the door reads back),
// through the local instance's admin seed route. Prints the answer on stdout, its status on stderr.
// Exit 0 when the instance acknowledged the event (2xx), 1 when it refused it, 2 on a usage error.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PLATFORM_SECRETS } from "./dev-platforms.mjs";
import { DEV_VARS, readDevVar } from "./dev-vars.mjs";
import { DEMO_REPOSITORY } from "./dev-webhook.mjs";
import {
  NETLIFY_STATES,
  netlifyDeployBody,
  newNetlifyDeploy,
  newVercelDeployment,
  signNetlify,
  signVercel,
  VERCEL_TYPES,
  vercelDeploymentRecord,
  vercelEventBody,
} from "./platform-events.mjs";
import { signServiceToken } from "./service-token.mjs";
import { localInstance, START_DIR } from "./start-state.mjs";

const USAGE = `Usage: npm run platform-event -- vercel ${Object.keys(VERCEL_TYPES).join("|")} --pr <n> [options]
       npm run platform-event -- netlify ${Object.keys(NETLIFY_STATES).join("|")} --pr <n> [options]

Sends a signed deploy event of npm start's demo Vercel project or demo Netlify site (bound to
${DEMO_REPOSITORY.name}) to a running Sponson Edge. \`created\` (Vercel) and \`building\` (Netlify)
announce a new deployment; the other events are of the last one announced for that pull request.
Add -s after run for quiet output (the answer alone on stdout, for jq).

  --pr <n>               the pull request (its scope is pr-<n>); without it, a branch deploy of --branch
  --branch <name>        the head branch (default feature-<n>)
  --production           a production deployment (the door acknowledges and ignores it)
  --repository-id <id>   the repository Vercel's gitSource names (default ${DEMO_REPOSITORY.id}: the bound
                         one; another is refused 403)
  --replay               send the last event sent to this platform again, byte for byte (a duplicate)
  --forge                sign with a secret that is not the connection's (refused 401)
  --url <url>            the instance (default $SPONSON_URL, else where this checkout's npm start listens)
  --secret <secret>      the signing secret (default ${PLATFORM_SECRETS.vercel} / ${PLATFORM_SECRETS.netlify}
                         from ${DEV_VARS}, which npm start creates)

Environment: SPONSON_TOKEN, an admin token to tell the emulated Vercel API of a deployment with
(default: one signed with SERVICE_SIGNING_KEY from ${DEV_VARS}).
`;

const STATE = join(START_DIR, "platform-events.json");
const SHA = "7638417db6d59f3c431d3e1f261cc637155684cd";

function usage(message) {
  process.stderr.write(`platform-event: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      pr: { type: "string" },
      branch: { type: "string" },
      production: { type: "boolean" },
      "repository-id": { type: "string" },
      replay: { type: "boolean" },
      forge: { type: "boolean" },
      url: { type: "string" },
      secret: { type: "string" },
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
const [platform, event, ...extra] = positionals;
if (platform !== "vercel" && platform !== "netlify") usage("the platform must be vercel or netlify");
const events = platform === "vercel" ? VERCEL_TYPES : NETLIFY_STATES;
if (!values.replay && (!Object.hasOwn(events, event ?? "") || extra.length > 0))
  usage(`the ${platform} event must be one of ${Object.keys(events).join(", ")}`);
const pr = values.pr === undefined ? null : Number(values.pr);
if (pr !== null && (!Number.isInteger(pr) || pr <= 0)) usage("--pr must be a pull request number");
if (pr === null && values.branch === undefined && !values.replay && !values.production)
  usage("--pr or --branch is needed");
const branch = values.branch ?? (pr === null ? "main" : `feature-${pr}`);
const repositoryId =
  values["repository-id"] === undefined ? DEMO_REPOSITORY.id : Number(values["repository-id"]);
if (!Number.isInteger(repositoryId) || repositoryId <= 0) usage("--repository-id must be a positive integer");

const devVars = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
const secret = values.secret ?? readDevVar(devVars, PLATFORM_SECRETS[platform]);
if (!secret)
  usage(`no ${platform} secret: pass --secret, or run \`npm start\` once to create one in ${DEV_VARS}`);
const url = (values.url ?? process.env.SPONSON_URL ?? localInstance().url).replace(/\/+$/, "");

const state = existsSync(STATE) ? JSON.parse(readFileSync(STATE, "utf8")) : {};
state[platform] ??= { deployments: {} };
const remembered = state[platform];
const key = pr === null ? `branch-${branch}` : `pr-${pr}`;

let body;
let signature;
if (values.replay) {
  if (!remembered.last) usage(`no ${platform} event was sent from this checkout yet: nothing to replay`);
  ({ body, signature } = remembered.last);
} else if (platform === "vercel") {
  const fresh = event === "created" || remembered.deployments[key] === undefined;
  const deployment = fresh ? newVercelDeployment() : remembered.deployments[key];
  if (fresh) {
    const record = vercelDeploymentRecord({
      id: deployment,
      pr,
      branch,
      repositoryId,
      sha: SHA,
      production: values.production === true,
      createdAt: Date.now(),
    });
    await seedVercel(record);
    remembered.deployments[key] = deployment;
  }
  body = vercelEventBody({ type: VERCEL_TYPES[event], deployment, production: values.production === true });
  signature = signVercel(values.forge ? "not-the-secret" : secret, body);
} else {
  const fresh = event === "building" || remembered.deployments[key] === undefined;
  const deploy = fresh ? newNetlifyDeploy() : remembered.deployments[key];
  remembered.deployments[key] = deploy;
  body = netlifyDeployBody({
    deploy,
    state: NETLIFY_STATES[event],
    pr,
    branch,
    sha: SHA,
    production: values.production === true,
  });
  signature = await signNetlify(values.forge ? "not-the-secret" : secret, body);
}
if (!values.forge) remembered.last = { body, signature };
mkdirSync(START_DIR, { recursive: true });
writeFileSync(STATE, `${JSON.stringify(state, null, 2)}\n`);

const header = platform === "vercel" ? "x-vercel-signature" : "x-webhook-signature";
process.stderr.write(
  `platform-event: ${platform} ${values.replay ? "replay" : event} of ${key}${values.forge ? " (forged)" : ""} → ${url}/v1/webhooks/${platform}\n`,
);
let res;
try {
  res = await fetch(`${url}/v1/webhooks/${platform}`, {
    method: "POST",
    headers: { "content-type": "application/json", [header]: signature },
    body,
  });
} catch (err) {
  process.stderr.write(
    `platform-event: ${url} cannot be reached (${err.cause?.code ?? err.message}); is npm start running?\n`,
  );
  process.exit(1);
}
process.stderr.write(`platform-event: HTTP ${res.status}\n`);
process.stdout.write(`${await res.text()}\n`);
process.exit(res.ok ? 0 : 1);

/**
 * The emulated Vercel API learns the deployment, through the local instance's admin seed route: as
 * $SPONSON_TOKEN (an admin token), else a five-minute admin token signed with .dev.vars' key.
 */
async function seedVercel(record) {
  const signingKey = readDevVar(devVars, "SERVICE_SIGNING_KEY");
  if (!process.env.SPONSON_TOKEN && !signingKey)
    usage(`no SERVICE_SIGNING_KEY in ${DEV_VARS} and no SPONSON_TOKEN: run \`npm start\` once`);
  const token =
    process.env.SPONSON_TOKEN ??
    (await signServiceToken(signingKey, { role: "admin", sub: "platform-event", ttl: 300 })).token;
  let res;
  try {
    res = await fetch(`${url}/v1/emulators/api.vercel.com/seed`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ [`deployment:${record.id}`]: record }),
    });
  } catch (err) {
    process.stderr.write(
      `platform-event: ${url} cannot be reached (${err.cause?.code ?? err.message}); is npm start running?\n`,
    );
    process.exit(1);
  }
  if (!res.ok) {
    process.stderr.write(
      `platform-event: the emulated Vercel API was not told of ${record.id}: HTTP ${res.status}\n`,
    );
    process.exit(1);
  }
}
