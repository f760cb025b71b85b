/**
 * Test helpers for the platform door (docs/design.md, "The platform door"): platform connections as
 * SPONSON_PLATFORMS, deployments seeded into the Vercel emulator, Vercel and Netlify events signed
 * as the platforms sign them, delivered to the real app; the queue is a recorder that keeps every
 * job and forwards none (each test runs the consumer itself, deterministically).
 */
import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import {
  deploymentRecord,
  VERCEL_API_HOST,
  type VercelDeploymentRecord,
  vercelKeys,
} from "../../dev/emulators/vercel";
import { createDevApp } from "../../dev/entry/dev-app";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { Env } from "../../shared/env";
import type { Plan } from "../../shared/schemas/plan";
import type { QueuedDestroy } from "../../shared/schemas/queued-destroy";
import type { QueuedPlatformApply } from "../../shared/schemas/queued-platform-apply";
import { consumePlatformApplies } from "../../workers/queue/platform-apply-consumer";
import { enginePlatformApplyRunner } from "../../workers/wiring/platform-apply";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { batchOf } from "../queue/queue-batches";
import { testEnv } from "./connections";
import { emulatorStub } from "./emulators";
import { DEFAULT_REPOSITORY } from "./repositories";

export const VERCEL_HOOK_SECRET = "test-only-vercel-hook-secret-0123";
export const VERCEL_TOKEN = "vercel_test-only-token-0123";
export const NETLIFY_HOOK_SECRET = "test-only-netlify-hook-secret-0123";
export const TEST_TEAM = "team_sponsontest";
export const SHA = "0123456789abcdef0123456789abcdef01234567";

export const freshProject = () => `prj_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
export const freshSite = () => crypto.randomUUID();
export const freshDeployment = () => `dpl_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
export const freshEventId = () => `evt_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;

export function vercelPlatform(plan: Plan, extra: Record<string, unknown> = {}) {
  return {
    name: "web-vercel",
    platform: "vercel",
    project: freshProject(),
    team: TEST_TEAM,
    repository: DEFAULT_REPOSITORY.name,
    environment: "preview",
    plan,
    webhookSecret: "VERCEL_WEBHOOK_SECRET_TEST",
    apiToken: "VERCEL_TOKEN_TEST",
    ...extra,
  } as const;
}

export function netlifyPlatform(plan: Plan, extra: Record<string, unknown> = {}) {
  return {
    name: "web-netlify",
    platform: "netlify",
    site: freshSite(),
    repository: DEFAULT_REPOSITORY.name,
    environment: "staging",
    plan,
    webhookSecret: "NETLIFY_WEBHOOK_SECRET_TEST",
    ...extra,
  } as const;
}

/** SPONSON_PLATFORMS and the secrets the test connections name, on the test Worker's bindings. */
export function platformEnv(platforms: object[], extra: Record<string, unknown> = {}): Env {
  return testEnv({
    ...env,
    SPONSON_PLATFORMS: JSON.stringify(platforms),
    VERCEL_WEBHOOK_SECRET_TEST: VERCEL_HOOK_SECRET,
    VERCEL_TOKEN_TEST: VERCEL_TOKEN,
    NETLIFY_WEBHOOK_SECRET_TEST: NETLIFY_HOOK_SECRET,
    ...extra,
  } as Env);
}

/** A preview deployment of `projectId` as Vercel's API answers it, readable with VERCEL_TOKEN. */
export async function seedVercelDeployment(
  seed: Partial<VercelDeploymentRecord> & { id: string; projectId: string },
): Promise<VercelDeploymentRecord> {
  const record = deploymentRecord({ teamId: TEST_TEAM, ...seed });
  await emulatorStub(VERCEL_API_HOST).seed({
    [vercelKeys.token(VERCEL_TOKEN)]: { scopes: [TEST_TEAM] },
    [vercelKeys.deployment(seed.id)]: record,
  });
  return record;
}

/** A pull request's git source, as Vercel records a GitHub deployment of the default repository. */
export function gitSource(
  pr: number | null,
  ref = `feature-${pr ?? "x"}`,
  repoId: number = DEFAULT_REPOSITORY.id,
) {
  return { type: "github" as const, repoId, ref, sha: SHA, prId: pr };
}

export function vercelEvent(event: {
  type?: string;
  id?: string;
  project: string;
  deployment: string;
  target?: string | null;
  meta?: Record<string, string>;
}): string {
  return JSON.stringify({
    id: event.id ?? freshEventId(),
    type: event.type ?? "deployment.created",
    createdAt: Date.now(),
    region: "iad1",
    payload: {
      team: { id: TEST_TEAM },
      user: { id: "usr_test" },
      project: { id: event.project },
      deployment: { id: event.deployment, url: "ignored.vercel.app", name: "web", meta: event.meta ?? {} },
      links: {
        deployment: `https://vercel.com/acme/web/${event.deployment}`,
        project: "https://vercel.com/acme/web",
      },
      target: event.target === undefined ? null : event.target,
      plan: "pro",
      regions: ["iad1"],
    },
  });
}

async function hmacHex(hash: "SHA-1" | "SHA-256", secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const signVercel = (secret: string, body: string) => hmacHex("SHA-1", secret, body);

export async function signNetlify(secret: string, body: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
  const sha256 = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return new SignJWT({ sha256 })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer("netlify")
    .sign(new TextEncoder().encode(secret));
}

export function netlifyDeploy(deploy: {
  site: string;
  id?: string;
  pr?: number | null;
  branch?: string;
  context?: string;
  state?: string;
  createdAt?: string;
  commit?: string | null;
  name?: string;
}): string {
  const id = deploy.id ?? crypto.randomUUID().replaceAll("-", "").slice(0, 24);
  const name = deploy.name ?? "sponson-test";
  return JSON.stringify({
    id,
    site_id: deploy.site,
    build_id: crypto.randomUUID().replaceAll("-", "").slice(0, 24),
    state: deploy.state ?? "ready",
    name,
    url: `https://${name}.netlify.app`,
    ssl_url: `https://${name}.netlify.app`,
    admin_url: `https://app.netlify.com/sites/${name}`,
    deploy_url: `http://${id}--${name}.netlify.app`,
    deploy_ssl_url: `https://${id}--${name}.netlify.app`,
    created_at: deploy.createdAt ?? new Date().toISOString(),
    updated_at: new Date().toISOString(),
    error_message: null,
    branch: deploy.branch ?? `feature-${deploy.pr ?? "x"}`,
    commit_ref: deploy.commit === undefined ? SHA : deploy.commit,
    context: deploy.context ?? "deploy-preview",
    review_id: deploy.pr === undefined ? 7 : deploy.pr,
    draft: false,
    skipped: null,
  });
}

/** Where a test's platform events go, and what they queued and asked of the outside. */
export function platformReceiver(
  platforms: object[],
  extra: Record<string, unknown> = {},
  knobs: { failSends?: number } = {},
) {
  let failSends = knobs.failSends ?? 0;
  const sent: QueuedPlatformApply[] = [];
  /** What a GitHub close queued through the same queue binding. */
  const destroys: QueuedDestroy[] = [];
  const outbound: string[] = [];
  const queue = {
    send: async (body: QueuedPlatformApply) => {
      if (failSends > 0) {
        failSends -= 1;
        throw new Error("Queue send failed: injected");
      }
      sent.push(structuredClone(body));
    },
    sendBatch: async (messages: Iterable<MessageSendRequest<QueuedDestroy>>) => {
      for (const m of messages) destroys.push(structuredClone(m.body));
    },
  } as unknown as Queue<QueuedPlatformApply>;
  const bindings = platformEnv(platforms, { ...extra, DESTROY_QUEUE: queue });
  const app = createDevApp({
    engine: {
      wrapFetch: (inner) => (input, init) => {
        const req = new Request(input, init);
        outbound.push(`${req.method} ${new URL(req.url).host}${new URL(req.url).pathname}`);
        return inner(input, init);
      },
    },
  });
  return {
    sent,
    destroys,
    outbound,
    env: bindings,
    /** The real app, for other routes (the GitHub webhook) on the same bindings. */
    app,
    async vercel(body: string, signature?: string | null) {
      const headers = new Headers({ "content-type": "application/json" });
      const sig = signature === undefined ? await signVercel(VERCEL_HOOK_SECRET, body) : signature;
      if (sig !== null) headers.set("x-vercel-signature", sig);
      return app.fetch(
        new Request("https://sponson.test/v1/webhooks/vercel", { method: "POST", headers, body }),
        bindings,
      );
    },
    async netlify(body: string, signature?: string | null) {
      const headers = new Headers({ "content-type": "application/json" });
      const sig = signature === undefined ? await signNetlify(NETLIFY_HOOK_SECRET, body) : signature;
      if (sig !== null) headers.set("x-webhook-signature", sig);
      return app.fetch(
        new Request("https://sponson.test/v1/webhooks/netlify", { method: "POST", headers, body }),
        bindings,
      );
    },
  };
}

/** Runs queued platform applies through the Worker's queue consumer, as the queue would deliver them. */
export async function runQueued(
  bindings: Env,
  jobs: readonly QueuedPlatformApply[],
  overrides: EngineOverrides = {},
) {
  const batch = batchOf("sponson-destroys", [...jobs]);
  return consumePlatformApplies(
    batch.messages,
    bindings,
    enginePlatformApplyRunner(emulatorTransport, overrides),
  );
}
