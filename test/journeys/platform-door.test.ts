/**
 * The platform door under load (docs/design.md, "The platform door"; numbers: docs/performance.md,
 * "The platform door"): 30 pull requests of one Vercel project deploy at once onto one Auth0
 * application and one Supabase project, each through `POST /v1/webhooks/vercel`. Ten of them deploy
 * twice; every event is delivered twice, all at once in shuffled order; one delivery in ten is
 * a forgery. The queue runs every accepted apply at once, in shuffled order, redelivering what it
 * asks to retry. Then every pull request is closed through the GitHub webhook.
 *
 * Held: 0 lost (each pull request's newest deployment URL is on both lists), 0 leaked (no older
 * deployment's URL, nothing left after the closes), 0 forged accepted. The control, the same
 * deployments applied without parent locks while the tenant's read barrier lines their reads up,
 * loses entries.
 */
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { Plan } from "../../shared/schemas/plan";
import type { QueuedPlatformApply } from "../../shared/schemas/queued-platform-apply";
import type { PlatformApplyReport } from "../../workers/queue/platform-apply-consumer";
import { engineDestroyRunner } from "../../workers/wiring/background";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { supabaseProject } from "../adapters/supabase/supabase-project";
import { connectionOf } from "../helpers/connections";
import { auth0Client, configureHost, freshAuth0Domain } from "../helpers/emulators";
import { signGithubPayload } from "../helpers/github-signature";
import { APP_CLIENT, auth0Connection, seedTenant } from "../helpers/plans";
import {
  freshDeployment,
  gitSource,
  platformReceiver,
  runQueued,
  seedVercelDeployment,
  signVercel,
  vercelEvent,
  vercelPlatform,
} from "../helpers/platforms";
import { pullRequestPayload, TEST_WEBHOOK_SECRET } from "../webhooks/github-delivery";

const PULLS = 30;
const TWICE = 10;
const UNRELATED = "https://app.example.com/callback";

/** A deterministic shuffle (mulberry32), so a failure replays. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

async function world(pulls: number) {
  const domain = freshAuth0Domain("door");
  await seedTenant(domain, { callbacks: [UNRELATED] });
  const supabase = await supabaseProject("http://localhost:3000/**");
  const auth0 = auth0Connection(domain);
  const supabaseConnection = connectionOf(`door-supabase-${supabase.ref}`, {
    type: "supabase",
    accessToken: { secret: "DOOR_SUPABASE_TOKEN" },
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "callback",
        op: "auth0.callbackUrl",
        connection: auth0,
        params: { client: APP_CLIENT, url: "{previewUrl}/callback" },
      },
      {
        id: "redirect",
        op: "supabase.redirectUrl",
        connection: supabaseConnection,
        params: { project: supabase.ref, url: "{previewUrl}/**" },
      },
    ],
  };
  // Each deployment's own URL: an older deployment's entry must never outlive (or outrun) a newer one's.
  const platform = vercelPlatform(plan, { url: "deployment" });
  const receiver = platformReceiver([platform], { DOOR_SUPABASE_TOKEN: supabase.token });
  const base = 200_000 + Math.floor(Math.random() * 700_000) * 10;
  const prs = Array.from({ length: pulls }, (_, i) => base + i);
  const lists = async () => ({
    callbacks: (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [],
    redirects: (await supabase.allowListNow())?.split(",").filter(Boolean) ?? [],
  });
  return { domain, platform, receiver, prs, lists };
}

/** Runs jobs as the queue would: all at once, each retried until it settles (the queue's redelivery). */
async function drain(
  receiver: ReturnType<typeof platformReceiver>,
  jobs: QueuedPlatformApply[],
  onDone: (job: QueuedPlatformApply) => void,
  overrides: EngineOverrides = {},
) {
  const reports: PlatformApplyReport[] = [];
  let pending = jobs;
  for (let round = 0; pending.length > 0 && round < 5; round++) {
    const settled = await Promise.all(
      pending.map(async (job) => {
        const [report] = await runQueued(receiver.env, [job], overrides);
        if (report?.status === "done") onDone(job);
        return report as PlatformApplyReport;
      }),
    );
    reports.push(...settled.filter((r) => r.status !== "retry"));
    pending = settled.flatMap((r) => (r.status === "retry" ? [r.job] : []));
  }
  expect(pending).toEqual([]);
  return reports;
}

describe("30 pull requests deploy at once through the platform door", () => {
  it("none lost, none leaked, no forgery accepted; every close empties both lists", {
    timeout: 300_000,
  }, async () => {
    const { platform, receiver, prs, lists } = await world(PULLS);
    const newest = new Map<number, string>();
    const older = new Map<number, string>();
    const deliveries: Array<{ body: string; forged: boolean }> = [];
    for (const [i, pr] of prs.entries()) {
      const createdAt = 1_800_000_000_000 + i * 1000;
      const latest = freshDeployment();
      const record = await seedVercelDeployment({
        id: latest,
        projectId: platform.project,
        createdAt: createdAt + 500,
        gitSource: gitSource(pr),
      });
      newest.set(pr, `https://${record.url}`);
      const events = [
        vercelEvent({ project: platform.project, deployment: latest }),
        vercelEvent({ type: "deployment.succeeded", project: platform.project, deployment: latest }),
      ];
      if (i < TWICE) {
        const first = freshDeployment();
        const a = await seedVercelDeployment({
          id: first,
          projectId: platform.project,
          createdAt,
          gitSource: gitSource(pr),
        });
        older.set(pr, `https://${a.url}`);
        // The older deployment's event comes after the newer one's.
        events.push(vercelEvent({ project: platform.project, deployment: first }));
      }
      // Every event delivered twice.
      for (const body of events) deliveries.push({ body, forged: false }, { body, forged: false });
    }
    // One delivery in ten is a forgery: a brand-new "deployment" of some pull request, badly signed.
    const forgeries = Math.floor(deliveries.length / 9);
    for (let f = 0; f < forgeries; f++) {
      const pr = prs[f % prs.length] as number;
      const fake = freshDeployment();
      await seedVercelDeployment({
        id: fake,
        projectId: platform.project,
        createdAt: 1_900_000_000_000,
        gitSource: gitSource(pr),
      });
      deliveries.push({ body: vercelEvent({ project: platform.project, deployment: fake }), forged: true });
    }
    // All at once, in shuffled order: duplicates race each other, an older deployment's event may
    // come before or after its newer one's.
    const arrived = shuffled(deliveries, 45);
    const answers = await Promise.all(
      arrived.map(async (d) => {
        const res = await receiver.vercel(
          d.body,
          d.forged ? await signVercel("forged-secret-0123", d.body) : undefined,
        );
        return { forged: d.forged, status: res.status, body: (await res.json()) as Record<string, unknown> };
      }),
    );
    expect(answers.filter((a) => a.forged).every((a) => a.status === 401)).toBe(true);
    expect(answers.filter((a) => !a.forged).every((a) => a.status === 202)).toBe(true);
    const accepted = answers.filter((a) => a.body.accepted === true).length;
    const duplicates = answers.filter((a) => a.body.duplicate === true).length;
    const doorCalls = receiver.outbound.length;

    // The queue: every accepted apply at once, shuffled; timed from the event's arrival.
    const written: number[] = [];
    const calls: string[] = [];
    const overrides = {
      wrapFetch: (inner: typeof fetch) => (input: RequestInfo | URL, init?: RequestInit) => {
        const req = new Request(input, init);
        calls.push(`${req.method} ${new URL(req.url).host}`);
        return inner(input, init);
      },
    };
    const reports = await drain(
      receiver,
      shuffled(receiver.sent.splice(0), 7),
      (job) => written.push(Date.now() - job.receivedAt),
      overrides,
    );
    // One apply per accepted event: duplicates delivered at the same moment queue nothing more.
    expect(reports).toHaveLength(accepted);
    const outcomes = reports.map((r) => (r.status === "done" ? r.outcome : r.status));
    expect(outcomes.filter((o) => o === "failed" || o === "malformed")).toEqual([]);

    const { callbacks, redirects } = await lists();
    const want = [...newest.values()];
    // 0 lost: every pull request's newest deployment is on both lists.
    expect(want.filter((u) => !callbacks.includes(`${u}/callback`))).toEqual([]);
    expect(want.filter((u) => !redirects.includes(`${u}/**`))).toEqual([]);
    // 0 leaked, 0 forged: nothing else (no older deployment, no forged one) is.
    expect(callbacks.sort()).toEqual([UNRELATED, ...want.map((u) => `${u}/callback`)].sort());
    expect(redirects.sort()).toEqual(["http://localhost:3000/**", ...want.map((u) => `${u}/**`)].sort());

    const sorted = [...written].sort((a, b) => a - b);
    const count = (pattern: RegExp) => calls.filter((c) => pattern.test(c)).length;
    console.log(
      JSON.stringify({
        journey: "platform-door",
        pulls: PULLS,
        deliveries: deliveries.length,
        forged: forgeries,
        accepted,
        duplicates,
        applies: reports.length,
        outcomes: Object.fromEntries(
          [...new Set(outcomes)].map((o) => [o, outcomes.filter((x) => x === o).length]),
        ),
        receivedToWrittenMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) },
        vercelReads: doorCalls,
        auth0: {
          reads: count(/^GET .*auth0\.com$/),
          writes: count(/^PATCH .*auth0\.com$/),
          token: count(/^POST .*auth0\.com$/),
        },
        supabase: { reads: count(/^GET api\.supabase\.com$/), writes: count(/^PATCH api\.supabase\.com$/) },
        providerCallsPerDeploy: Number((calls.length / PULLS).toFixed(2)),
      }),
    );

    // Every pull request closed: both lists back to what they held before.
    for (const pr of prs) {
      const body = JSON.stringify(
        pullRequestPayload("closed", pr, new Date(Date.now() + 2000).toISOString().replace(/\.\d+Z$/, "Z")),
      );
      const res = await receiver.app.fetch(
        new Request("https://sponson.test/v1/webhooks/github", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-github-event": "pull_request",
            "x-github-delivery": crypto.randomUUID(),
            "x-hub-signature-256": await signGithubPayload(TEST_WEBHOOK_SECRET, body),
          },
          body,
        }),
        receiver.env,
      );
      expect(res.status).toBe(200);
    }
    const destroy = engineDestroyRunner(emulatorTransport);
    const destroyed = await Promise.all(receiver.destroys.splice(0).map((job) => destroy(receiver.env, job)));
    expect(destroyed.every((d) => d.outcome === "destroyed")).toBe(true);
    expect(await lists()).toEqual({ callbacks: [UNRELATED], redirects: ["http://localhost:3000/**"] });
  });

  it("control: the same deploys applied without parent locks lose entries", {
    timeout: 120_000,
  }, async () => {
    const pulls = 8;
    const { domain, platform, receiver, prs, lists } = await world(pulls);
    const want: string[] = [];
    for (const pr of prs) {
      const deployment = freshDeployment();
      const record = await seedVercelDeployment({
        id: deployment,
        projectId: platform.project,
        gitSource: gitSource(pr),
      });
      want.push(`https://${record.url}/callback`);
      expect((await receiver.vercel(vercelEvent({ project: platform.project, deployment }))).status).toBe(
        202,
      );
    }
    // The first two runs read the application together, before either writes it back: one of the
    // two entries is lost whatever the other runs do (a barrier over all of them hangs when one is
    // late, and its release then lines nobody up).
    await configureHost(domain, { readBarrier: 2 });
    await drain(receiver, receiver.sent.splice(0), () => {}, { controls: { parentLocks: false } });
    await configureHost(domain, {});
    const { callbacks } = await lists();
    expect(want.filter((u) => !callbacks.includes(u)).length).toBeGreaterThan(0);
  });
});
