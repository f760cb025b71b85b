// The local instance's platform door (docs/deploy.md, "Vercel", "Netlify"): `npm start` connects a
// demo Vercel project and a demo Netlify site to the demo repository, over the demo Auth0 tenant,
// and signs their events with secrets made once per checkout into .dev.vars (gitignored), as the
// GitHub webhook's. Nothing is connected when SPONSON_PLATFORMS is configured elsewhere.
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { DEV_VARS, readDevVar } from "./dev-vars.mjs";
import { DEMO_REPOSITORY } from "./dev-webhook.mjs";
import { DEMO_NETLIFY, DEMO_VERCEL } from "./platform-events.mjs";

export const PLATFORM_SECRETS = {
  vercel: "VERCEL_WEBHOOK_SECRET_DEMO",
  netlify: "NETLIFY_WEBHOOK_SECRET_DEMO",
};

const devVarsText = () => (existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "");

/** The checkout's local signing secret of `platform`, generated into .dev.vars on first use. */
export function ensurePlatformSecret(platform) {
  const name = PLATFORM_SECRETS[platform];
  const text = devVarsText();
  const existing = readDevVar(text, name);
  if (existing) return existing;
  const secret = randomBytes(32).toString("hex");
  const separator = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  appendFileSync(DEV_VARS, `${separator}${name}=${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The demo plan: the demo tenant's preview-app takes each preview's callback and origin. */
function demoPlan() {
  return {
    version: 2,
    lines: [
      {
        id: "callback",
        op: "auth0.callbackUrl",
        connection: "demo-auth0",
        params: { client: "preview-app", url: "{previewUrl}/callback" },
      },
      {
        id: "origin",
        op: "auth0.webOrigin",
        connection: "demo-auth0",
        params: { client: "preview-app", url: "{previewUrl}" },
      },
    ],
  };
}

/** The vars `npm start` adds for the platform door, and the lines it prints. */
export function localPlatformSetup(port) {
  ensurePlatformSecret("vercel");
  ensurePlatformSecret("netlify");
  if (readDevVar(devVarsText(), "SPONSON_PLATFORMS")) {
    return { vars: {}, lines: [`platforms: SPONSON_PLATFORMS from ${DEV_VARS}`] };
  }
  const platforms = demoPlatforms();
  const vars = {
    SPONSON_PLATFORMS: JSON.stringify(platforms),
    // The emulated Vercel's demo token (dev/emulators/vercel/demo.ts): a local value, not a secret.
    VERCEL_TOKEN_DEMO: DEMO_VERCEL.token,
  };
  // A close destroys in both demo environments, unless the environments are configured already.
  if (!readDevVar(devVarsText(), "SPONSON_ENVIRONMENTS"))
    vars.SPONSON_ENVIRONMENTS = JSON.stringify(["preview", "preview-netlify"]);
  const lines = [
    `platforms: Vercel project ${DEMO_VERCEL.project} → POST http://127.0.0.1:${port}/v1/webhooks/vercel, Netlify site ${DEMO_NETLIFY.site} → POST http://127.0.0.1:${port}/v1/webhooks/netlify, both bound to ${DEMO_REPOSITORY.name}, signed with ${PLATFORM_SECRETS.vercel} and ${PLATFORM_SECRETS.netlify} from ${DEV_VARS}`,
    "platforms: deploy a preview of pull request 5 with `npm run -s platform-event -- vercel created --pr 5` (or `netlify succeeded --pr 5`); `--help` for replays and forgeries",
  ];
  return { vars, lines };
}

/** The demo project and site's connections, as SPONSON_PLATFORMS lists them. */
export function demoPlatforms() {
  return [
    {
      name: "demo-vercel",
      platform: "vercel",
      project: DEMO_VERCEL.project,
      team: DEMO_VERCEL.team,
      repository: DEMO_REPOSITORY.name,
      environment: "preview",
      plan: demoPlan(),
      webhookSecret: PLATFORM_SECRETS.vercel,
      apiToken: "VERCEL_TOKEN_DEMO",
    },
    {
      name: "demo-netlify",
      platform: "netlify",
      site: DEMO_NETLIFY.site,
      repository: DEMO_REPOSITORY.name,
      // A scope's plan has one author: the demo site registers in an environment of its own.
      environment: "preview-netlify",
      plan: demoPlan(),
      webhookSecret: PLATFORM_SECRETS.netlify,
    },
  ];
}
