// Platform deploy events as Vercel and Netlify send them (docs/webhooks.md, "Platforms"), for
// `npm run platform-event` and the local suites: Vercel's envelope signed with `x-vercel-signature`
// (hex HMAC-SHA1 of the exact bytes), Netlify's Deploy object signed with `X-Webhook-Signature` (a
// JWS, HS256, `iss: netlify`, `sha256` of the exact bytes). Pure builders: nothing is sent here.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { SignJWT } from "jose";

/** The demo project and site `npm start` connects (dev/emulators/vercel/demo.ts; scripts/dev-platforms.mjs). */
export const DEMO_VERCEL = {
  project: "prj_sponsondemo",
  team: "team_sponsondemo",
  name: "web",
  token: "vercel_sponson-local-demo",
};
export const DEMO_NETLIFY = { site: "5e0d5e0d-0000-4000-8000-00000000de70", name: "sponson-demo" };

export const VERCEL_TYPES = {
  created: "deployment.created",
  succeeded: "deployment.succeeded",
  ready: "deployment.ready",
  error: "deployment.error",
  canceled: "deployment.canceled",
};
export const NETLIFY_STATES = { building: "building", succeeded: "ready", failed: "error" };

const hex = (bytes) => randomBytes(bytes).toString("hex");

export function newVercelDeployment() {
  return `dpl_${hex(12)}`;
}

/** A deployment as Vercel's API answers it: the record the Vercel emulator is seeded with. */
export function vercelDeploymentRecord({ id, pr, branch, repositoryId, sha, production = false, createdAt }) {
  const slug = branch
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const alias = production ? [] : [`${DEMO_VERCEL.name}-git-${slug}-acme.vercel.app`];
  return {
    id,
    url: `${DEMO_VERCEL.name}-${id.slice(4, 13)}-acme.vercel.app`,
    name: DEMO_VERCEL.name,
    createdAt,
    projectId: DEMO_VERCEL.project,
    teamId: DEMO_VERCEL.team,
    target: production ? "production" : null,
    readyState: "BUILDING",
    alias,
    automaticAliases: alias,
    gitSource: { type: "github", repoId: repositoryId, ref: branch, sha, prId: pr ?? null },
    // What anyone deploying can set: the door never reads it.
    meta: { githubCommitRef: branch, ...(pr ? { githubPrId: String(pr) } : {}) },
  };
}

export function vercelEventBody({ type, deployment, production = false }) {
  return JSON.stringify({
    id: `evt_${hex(12)}`,
    type,
    createdAt: Date.now(),
    region: "iad1",
    payload: {
      team: { id: DEMO_VERCEL.team },
      user: { id: "usr_sponsondemo" },
      project: { id: DEMO_VERCEL.project },
      deployment: {
        id: deployment,
        url: `${DEMO_VERCEL.name}-${deployment.slice(4, 13)}-acme.vercel.app`,
        name: "web",
        meta: {},
      },
      links: {
        deployment: `https://vercel.com/acme/web/${deployment}`,
        project: "https://vercel.com/acme/web",
      },
      target: production ? "production" : null,
      plan: "pro",
      regions: ["iad1"],
    },
  });
}

export function signVercel(secret, body) {
  return createHmac("sha1", secret).update(body).digest("hex");
}

export function newNetlifyDeploy() {
  return { id: hex(12), createdAt: new Date().toISOString() };
}

export function netlifyDeployBody({ deploy, state, pr, branch, sha, production = false }) {
  const { name, site } = DEMO_NETLIFY;
  return JSON.stringify({
    id: deploy.id,
    site_id: site,
    build_id: hex(12),
    state,
    name,
    url: `https://${name}.netlify.app`,
    ssl_url: `https://${name}.netlify.app`,
    admin_url: `https://app.netlify.com/sites/${name}`,
    deploy_url: `http://${deploy.id}--${name}.netlify.app`,
    deploy_ssl_url: `https://${deploy.id}--${name}.netlify.app`,
    created_at: deploy.createdAt,
    updated_at: new Date().toISOString(),
    error_message: null,
    branch,
    commit_ref: sha,
    context: production ? "production" : pr ? "deploy-preview" : "branch-deploy",
    review_id: production ? null : (pr ?? null),
    draft: false,
  });
}

export async function signNetlify(secret, body) {
  const sha256 = createHash("sha256").update(body).digest("hex");
  return new SignJWT({ sha256 })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer("netlify")
    .sign(new TextEncoder().encode(secret));
}
