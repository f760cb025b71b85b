/**
 * A Vercel project's preview deploys register their URLs through the door (docs/design.md, "The
 * platform door"): a signed event is verified against Vercel's own account of the deployment,
 * deduplicated, ordered by the deployment's creation time and queued; the queued apply writes the
 * entries — checked in the emulated tenant, not in our records. A replayed, a duplicated and an
 * out-of-order event change nothing.
 */
import { describe, expect, it } from "vitest";
import { holderWords, type Provenance, runHolderFor } from "../../shared/schemas/provenance";
import { ENQUEUE_GRACE_MS, resendsPending } from "../../workers/platforms/accept-deployment";
import { configuredReceiptStore } from "../../workers/receipts/configured-store";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import {
  freshDeployment,
  gitSource,
  platformReceiver,
  runQueued,
  SHA,
  seedVercelDeployment,
  vercelEvent,
  vercelPlatform,
} from "../helpers/platforms";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";

async function fixture(url: "branch" | "deployment" = "branch") {
  const domain = freshAuth0Domain("vercel");
  await seedTenant(domain);
  const plan = auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url: "{previewUrl}/callback" }]);
  const platform = vercelPlatform(plan, { url });
  const receiver = platformReceiver([platform]);
  const pr = 100_000 + Math.floor(Math.random() * 900_000);
  const callbacks = async () => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
  return { domain, platform, receiver, pr, callbacks };
}

describe("a signed Vercel event registers the deployment's URLs", () => {
  it("deployment.created of a pull request: queued for pr-<n>, applied, the branch URL in the tenant", async () => {
    const { platform, receiver, pr, callbacks } = await fixture();
    const deployment = freshDeployment();
    const record = await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      gitSource: gitSource(pr, `feature/login-${pr}`),
    });
    const res = await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ accepted: true, queued: true, scope: `pr-${pr}`, deployment });
    // The door asked Vercel once, for this deployment.
    expect(receiver.outbound).toEqual([`GET api.vercel.com/v13/deployments/${deployment}`]);
    expect(receiver.sent).toEqual([
      expect.objectContaining({
        kind: "platform-apply",
        connection: platform.name,
        scope: `pr-${pr}`,
        environment: "preview",
        deployment: expect.objectContaining({
          id: deployment,
          pullRequest: pr,
          branch: `feature/login-${pr}`,
        }),
      }),
    ]);
    const [report] = await runQueued(receiver.env, receiver.sent);
    expect(report).toMatchObject({ status: "done", outcome: "applied" });
    expect(await callbacks()).toEqual([`https://${record.alias[0]}/callback`]);
  });

  it("the scope comes from gitSource, never from meta: a branch deploy is branch-<name> whatever meta claims", async () => {
    const { platform, receiver, pr } = await fixture();
    const deployment = freshDeployment();
    await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      gitSource: gitSource(null, `topic-${pr}`),
    });
    const res = await receiver.vercel(
      vercelEvent({
        project: platform.project,
        deployment,
        meta: { githubPrId: "1", githubCommitRef: "main" },
      }),
    );
    expect(await res.json()).toMatchObject({ accepted: true, scope: `branch-topic-${pr}` });
  });

  it("the provenance names the pull request and the Vercel deployment wherever the run is shown", async () => {
    const { platform, receiver, pr } = await fixture();
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: platform.project, gitSource: gitSource(pr) });
    await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    const [report] = await runQueued(receiver.env, receiver.sent);
    expect(report).toMatchObject({ outcome: "applied" });
    const { receipt } = await configuredReceiptStore(receiver.env).read(scopeAddress("preview", `pr-${pr}`));
    const provenance = receipt.runs.at(-1)?.provenance;
    expect(provenance).toMatchObject({
      pullRequest: pr,
      headBranch: `feature-${pr}`,
      sha: SHA,
      declared: false,
      runUrl: `https://vercel.com/acme/web/${deployment}`,
      platform: { kind: "vercel", connection: platform.name, target: platform.project, deployment },
    });
    const holder = runHolderFor(
      "run-x",
      {
        repositoryId: DEFAULT_REPOSITORY.id,
        repository: DEFAULT_REPOSITORY.name,
        scope: `preview/pr-${pr}`,
        provenance: provenance as Provenance,
      },
      null,
    );
    expect(holderWords(holder)).toBe(`pull #${pr}, Vercel deployment ${deployment}`);
    // Another repository's caller learns nothing of it.
    expect(
      runHolderFor(
        "run-x",
        {
          repositoryId: DEFAULT_REPOSITORY.id,
          repository: DEFAULT_REPOSITORY.name,
          scope: `preview/pr-${pr}`,
          provenance: provenance as Provenance,
        },
        1,
      ).platform,
    ).toBeUndefined();
  });
});

describe("replays, duplicates and reordering change nothing", () => {
  it("the same event again is a duplicate: nothing queued, the tenant as it was", async () => {
    const { platform, receiver, pr, callbacks } = await fixture();
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: platform.project, gitSource: gitSource(pr) });
    const body = vercelEvent({ project: platform.project, deployment });
    await receiver.vercel(body);
    await runQueued(receiver.env, receiver.sent.splice(0));
    const before = await callbacks();
    const replay = await receiver.vercel(body);
    expect(replay.status).toBe(202);
    expect(await replay.json()).toMatchObject({ duplicate: true, queued: false });
    expect(receiver.sent).toEqual([]);
    expect(await callbacks()).toEqual(before);
  });

  it("an older deployment's event after a newer one's: ignored at the door", async () => {
    const { platform, receiver, pr } = await fixture("deployment");
    const [older, newer] = [freshDeployment(), freshDeployment()];
    await seedVercelDeployment({
      id: older,
      projectId: platform.project,
      createdAt: 1_800_000_000_000,
      gitSource: gitSource(pr),
    });
    await seedVercelDeployment({
      id: newer,
      projectId: platform.project,
      createdAt: 1_800_000_060_000,
      gitSource: gitSource(pr),
    });
    await receiver.vercel(vercelEvent({ project: platform.project, deployment: newer }));
    const late = await receiver.vercel(vercelEvent({ project: platform.project, deployment: older }));
    expect(await late.json()).toMatchObject({
      ignored: true,
      reason: expect.stringMatching(/newer deployment/),
    });
    expect(receiver.sent.map((j) => j.deployment.id)).toEqual([newer]);
  });

  it("two deployments queued in order, applied out of order: the older apply is skipped under the lease", async () => {
    const { platform, receiver, pr, callbacks } = await fixture("deployment");
    const [older, newer] = [freshDeployment(), freshDeployment()];
    const a = await seedVercelDeployment({
      id: older,
      projectId: platform.project,
      createdAt: 1_800_000_000_000,
      gitSource: gitSource(pr),
    });
    const b = await seedVercelDeployment({
      id: newer,
      projectId: platform.project,
      createdAt: 1_800_000_060_000,
      gitSource: gitSource(pr),
    });
    await receiver.vercel(vercelEvent({ project: platform.project, deployment: older }));
    await receiver.vercel(vercelEvent({ project: platform.project, deployment: newer }));
    const [first, second] = receiver.sent;
    // The queue delivers the newer one first, then the older one (a retry, a second consumer).
    expect((await runQueued(receiver.env, [second as never]))[0]).toMatchObject({ outcome: "applied" });
    const [late] = await runQueued(receiver.env, [first as never]);
    expect(late).toMatchObject({ outcome: "skipped", detail: expect.stringMatching(/superseded/) });
    expect(await callbacks()).toEqual([`https://${b.url}/callback`]);
    expect(await callbacks()).not.toContain(`https://${a.url}/callback`);
  });

  it("with url: deployment, the scope's next deploy replaces the previous deployment's URL", async () => {
    const { platform, receiver, pr, callbacks } = await fixture("deployment");
    const [one, two] = [freshDeployment(), freshDeployment()];
    const a = await seedVercelDeployment({
      id: one,
      projectId: platform.project,
      createdAt: 1_800_000_000_000,
      gitSource: gitSource(pr),
    });
    const b = await seedVercelDeployment({
      id: two,
      projectId: platform.project,
      createdAt: 1_800_000_060_000,
      gitSource: gitSource(pr),
    });
    await receiver.vercel(vercelEvent({ project: platform.project, deployment: one }));
    await runQueued(receiver.env, receiver.sent.splice(0));
    expect(await callbacks()).toEqual([`https://${a.url}/callback`]);
    await receiver.vercel(vercelEvent({ project: platform.project, deployment: two }));
    await runQueued(receiver.env, receiver.sent.splice(0));
    expect(await callbacks()).toEqual([`https://${b.url}/callback`]);
  });

  it("created, then succeeded, of one deployment: both applied, one entry (the branch URL)", async () => {
    const { platform, receiver, pr, callbacks } = await fixture();
    const deployment = freshDeployment();
    const record = await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      gitSource: gitSource(pr),
    });
    await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    const again = await receiver.vercel(
      vercelEvent({ type: "deployment.succeeded", project: platform.project, deployment }),
    );
    expect(await again.json()).toMatchObject({ accepted: true });
    const reports = await runQueued(receiver.env, receiver.sent.splice(0));
    expect(reports.map((r) => (r.status === "done" ? r.outcome : r.status))).toEqual(["applied", "applied"]);
    expect(await callbacks()).toEqual([`https://${record.alias[0]}/callback`]);
  });
});

describe("a deployment without its branch alias yet", () => {
  it("with url: branch, is ignored (audited) rather than queued to fail; a later event of it registers", async () => {
    const { platform, receiver, pr, callbacks } = await fixture();
    const deployment = freshDeployment();
    await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      gitSource: gitSource(pr),
      alias: [],
      automaticAliases: [],
    });
    const early = await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    expect(await early.json()).toMatchObject({
      ignored: true,
      reason: expect.stringMatching(/no branch alias/),
    });
    expect(receiver.sent).toEqual([]);
    const record = await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      gitSource: gitSource(pr),
    });
    const later = await receiver.vercel(
      vercelEvent({ type: "deployment.succeeded", project: platform.project, deployment }),
    );
    expect(await later.json()).toMatchObject({ accepted: true });
    await runQueued(receiver.env, receiver.sent.splice(0));
    expect(await callbacks()).toEqual([`https://${record.alias[0]}/callback`]);
  });
});

describe("an apply that could not be queued", () => {
  it("is refused 500, and the platform's redelivery queues it (not a duplicate)", async () => {
    const { platform, pr } = await fixture();
    const receiver = platformReceiver([platform], {}, { failSends: 1 });
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: platform.project, gitSource: gitSource(pr) });
    const body = vercelEvent({ project: platform.project, deployment });
    expect((await receiver.vercel(body)).status).toBe(500);
    const again = await receiver.vercel(body);
    expect(await again.json()).toMatchObject({ accepted: true, queued: true });
    expect(receiver.sent).toHaveLength(1);
  });

  it("a duplicate of an event still pending queues it again only once the first had long enough", () => {
    const at = 1_800_000_000_000;
    expect(resendsPending({ enqueuePending: true, receivedAt: at }, at + 1_000)).toBe(false);
    expect(resendsPending({ enqueuePending: true, receivedAt: at }, at + ENQUEUE_GRACE_MS)).toBe(true);
    expect(resendsPending({ enqueuePending: false, receivedAt: at }, at + 10 * ENQUEUE_GRACE_MS)).toBe(false);
  });
});

describe("a closed pull request", () => {
  it("accepts no deploy event, and an apply queued before the close is not applied", async () => {
    const { platform, receiver, pr, callbacks } = await fixture();
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: platform.project, gitSource: gitSource(pr) });
    await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    await scopeStateClient(receiver.env, DEFAULT_REPOSITORY.id, `pr-${pr}`).applyEvent({
      status: "closed",
      revision: Date.now(),
      deliveryId: crypto.randomUUID(),
    });
    const [report] = await runQueued(receiver.env, receiver.sent.splice(0));
    expect(report).toMatchObject({ status: "done", outcome: "skipped" });
    expect(await callbacks()).toEqual([]);
    const late = await receiver.vercel(
      vercelEvent({ type: "deployment.succeeded", project: platform.project, deployment }),
    );
    expect(await late.json()).toMatchObject({ ignored: true, reason: "the pull request is closed" });
    expect(receiver.sent).toEqual([]);
  });
});
