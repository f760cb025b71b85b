/**
 * What `POST /v1/webhooks/vercel` refuses, and that a refused event does nothing (docs/webhooks.md,
 * "Vercel"; docs/design.md, "The platform door"): an unknown project is 404 before any outbound
 * request; a missing, malformed, forged signature is 401 with one message; a body over 1 MiB is
 * 413; a deployment Vercel says is another repository's, or another project's, is 403 and audited.
 * Nothing is queued by any of them.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { PlatformEventAudit } from "../../workers/platforms/platform-audit";
import { PLATFORM_AUDIT_PREFIX } from "../../workers/platforms/platform-audit";
import { auth0Plan } from "../helpers/plans";
import {
  freshDeployment,
  freshProject,
  gitSource,
  platformReceiver,
  seedVercelDeployment,
  signVercel,
  vercelEvent,
  vercelPlatform,
} from "../helpers/platforms";

const plan = auth0Plan("refusals.us.auth0.com", [
  { id: "cb", op: "auth0.callbackUrl", url: "{previewUrl}/cb" },
]);

async function auditOf(eventId: string): Promise<PlatformEventAudit[]> {
  const listed = await env.RECEIPTS.list({ prefix: PLATFORM_AUDIT_PREFIX });
  const records = await Promise.all(
    listed.objects.map(async (o) => (await (await env.RECEIPTS.get(o.key))?.json()) as PlatformEventAudit),
  );
  return records.filter((r) => r.eventId === eventId);
}

describe("POST /v1/webhooks/vercel refuses, and does nothing", () => {
  it("an unknown project: 404, and not one outbound request", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: platform.project, gitSource: gitSource(5) });
    const other = vercelEvent({ project: freshProject(), deployment });
    const res = await receiver.vercel(other);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "NOT_FOUND", rule: "platform.unknown" });
    expect(receiver.outbound).toEqual([]);
    expect(receiver.sent).toEqual([]);
  });

  it("a missing, a malformed and a forged signature: 401, one message, no outbound request", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const body = vercelEvent({ project: platform.project, deployment: freshDeployment() });
    const forged = await signVercel("not-the-hook-secret", body);
    const answers = [
      await receiver.vercel(body, null),
      await receiver.vercel(body, "sha1=not-hex"),
      await receiver.vercel(body, forged),
      // Signed for another body: the bytes are what is signed.
      await receiver.vercel(body, await signVercel("test-only-vercel-hook-secret-0123", `${body} `)),
    ];
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({
        code: "UNAUTHENTICATED",
        detail: "the event's signature is missing or does not match",
      });
    }
    expect(receiver.outbound).toEqual([]);
    expect(receiver.sent).toEqual([]);
  });

  it("a body over 1 MiB: 413, read no further", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const res = await receiver.vercel(`{"pad":"${"x".repeat(1024 * 1024)}"}`);
    expect(res.status).toBe(413);
    expect(receiver.outbound).toEqual([]);
  });

  it("a deployment whose gitSource names another repository: 403, audited, nothing queued", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const deployment = freshDeployment();
    await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      gitSource: gitSource(5, "feature-5", 99),
    });
    // The event's meta claims the bound repository's pull request: meta is never read.
    const body = vercelEvent({
      project: platform.project,
      deployment,
      meta: { githubRepoId: "186853002", githubPrId: "5" },
    });
    const res = await receiver.vercel(body);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "FORBIDDEN", rule: "platform.repository" });
    expect(receiver.sent).toEqual([]);
    const [record] = await auditOf(`vercel:${JSON.parse(body).id}`);
    expect(record).toMatchObject({ outcome: "refused", rule: "platform.repository", deployment });
  });

  it("a deployment made without Git (no gitSource), whatever its meta says: 403", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: platform.project, meta: { githubPrId: "5" } });
    const res = await receiver.vercel(
      vercelEvent({
        project: platform.project,
        deployment,
        meta: { githubPrId: "5", githubRepoId: "186853002" },
      }),
    );
    expect(res.status).toBe(403);
    expect(receiver.sent).toEqual([]);
  });

  it("an event of the bound project naming another project's deployment: 403 (project confusion)", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: freshProject(), gitSource: gitSource(5) });
    const res = await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ rule: "platform.project" });
    expect(receiver.sent).toEqual([]);
  });

  it("a deployment the connection's token cannot read: 403, nothing queued", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const deployment = freshDeployment();
    await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      teamId: "team_other",
      gitSource: gitSource(5),
    });
    const res = await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ rule: "platform.deployment" });
    expect(receiver.sent).toEqual([]);
  });
});

describe("POST /v1/webhooks/vercel acknowledges and ignores, with a reason in the audit", () => {
  it("a production deployment: 202 ignored before any outbound request", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const body = vercelEvent({
      project: platform.project,
      deployment: freshDeployment(),
      target: "production",
    });
    const res = await receiver.vercel(body);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ignored: true, reason: "a production deployment" });
    expect(receiver.outbound).toEqual([]);
    expect(receiver.sent).toEqual([]);
    expect(await auditOf(`vercel:${JSON.parse(body).id}`)).toEqual([
      expect.objectContaining({ outcome: "ignored", rule: "platform.production" }),
    ]);
  });

  it("a deployment Vercel says is production though the event says preview: ignored after the read", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const deployment = freshDeployment();
    await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      target: "production",
      gitSource: gitSource(null, "main"),
    });
    const res = await receiver.vercel(vercelEvent({ project: platform.project, deployment }));
    expect(await res.json()).toMatchObject({ ignored: true, reason: "a production deployment" });
    expect(receiver.sent).toEqual([]);
  });

  it("a target the connection does not name (staging): ignored with the reason", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const deployment = freshDeployment();
    await seedVercelDeployment({
      id: deployment,
      projectId: platform.project,
      target: "staging",
      gitSource: gitSource(5),
    });
    const body = vercelEvent({ project: platform.project, deployment, target: "staging" });
    const res = await receiver.vercel(body);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({
      ignored: true,
      reason: expect.stringMatching(/target staging/),
    });
    expect(receiver.sent).toEqual([]);
  });

  it("an event type that registers nothing (deployment.error): 202 ignored, nothing read", async () => {
    const platform = vercelPlatform(plan);
    const receiver = platformReceiver([platform]);
    const res = await receiver.vercel(
      vercelEvent({ type: "deployment.error", project: platform.project, deployment: freshDeployment() }),
    );
    expect(await res.json()).toMatchObject({ ignored: true, reason: "deployment.error registers nothing" });
    expect(receiver.outbound).toEqual([]);
  });
});
