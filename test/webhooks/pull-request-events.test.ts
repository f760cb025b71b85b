/**
 * What each pull_request delivery does to its scope and to the destroy queue (docs/design.md, "Webhooks and
 * the sweep").
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshPullRequest, pullRequestPayload, webhookReceiver } from "./github-delivery";

const CLOSED_AT = "2026-03-01T10:00:00Z";
const REOPENED_AT = "2026-03-01T10:05:00Z";

const repositoryFields = { repositoryId: DEFAULT_REPOSITORY.id, repositoryName: DEFAULT_REPOSITORY.name };

describe("pull_request webhooks", () => {
  it("closed marks pr-<n> closed at updated_at and enqueues one destroy per environment", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const deliveryId = crypto.randomUUID();
    const response = await receiver.deliver({
      body: JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT)),
      deliveryId,
    });
    const revision = Date.parse(CLOSED_AT);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      delivery: deliveryId,
      scope: `pr-${pr}`,
      applied: true,
      status: "closed",
      revision,
      destroysEnqueued: 2,
    });
    expect(receiver.sent).toEqual([
      { ...repositoryFields, environment: "preview", scope: `pr-${pr}`, revision, deliveryId },
      { ...repositoryFields, environment: "staging", scope: `pr-${pr}`, revision, deliveryId },
    ]);
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
      status: "closed",
      revision,
      deliveryId,
    });
  });

  it("reopened after closed opens the scope again and enqueues nothing", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    await receiver.deliver({ body: JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT)) });
    receiver.sent.length = 0;
    const response = await receiver.deliver({
      body: JSON.stringify(pullRequestPayload("reopened", pr, REOPENED_AT)),
    });
    expect(await response.json()).toMatchObject({ applied: true, status: "open", destroysEnqueued: 0 });
    expect(receiver.sent).toEqual([]);
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
      status: "open",
      revision: Date.parse(REOPENED_AT),
    });
  });

  it("a replayed close answers 200 duplicate and neither re-enqueues nor changes the scope", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const deliveryId = crypto.randomUUID();
    const body = JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT));
    await receiver.deliver({ body, deliveryId });
    const before = await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read();
    receiver.sent.length = 0;

    const replay = await receiver.deliver({ body, deliveryId });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ duplicate: true, destroysEnqueued: 0 });
    expect(receiver.sent).toEqual([]);
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toEqual(before);
  });

  it("a close replayed after a reopen does not close the scope again", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const closeId = crypto.randomUUID();
    const closeBody = JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT));
    await receiver.deliver({ body: closeBody, deliveryId: closeId });
    await receiver.deliver({ body: JSON.stringify(pullRequestPayload("reopened", pr, REOPENED_AT)) });
    receiver.sent.length = 0;

    const replay = await receiver.deliver({ body: closeBody, deliveryId: closeId });
    expect(await replay.json()).toMatchObject({ duplicate: true, status: "open" });
    expect(receiver.sent).toEqual([]);
    expect((await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).status).toBe("open");
  });

  it("a receiver that stored a close but died before enqueueing re-sends the destroys on redelivery", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const deliveryId = crypto.randomUUID();
    const revision = Date.parse(CLOSED_AT);
    // The first attempt got as far as the scope-state object, never to the queue.
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).applyEvent({
      status: "closed",
      revision,
      deliveryId,
    });

    const redelivery = await receiver.deliver({
      body: JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT)),
      deliveryId,
    });
    expect(await redelivery.json()).toMatchObject({ duplicate: true, destroysEnqueued: 2 });
    expect(receiver.sent.map((m) => m.environment)).toEqual(["preview", "staging"]);

    receiver.sent.length = 0;
    const third = await receiver.deliver({
      body: JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT)),
      deliveryId,
    });
    expect(await third.json()).toMatchObject({ duplicate: true, destroysEnqueued: 0 });
    expect(receiver.sent).toEqual([]);
  });

  it("a close from a repository the service is not configured for is accepted 202 and ignored", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const payload = pullRequestPayload("closed", pr, CLOSED_AT) as { repository: { id: number } };
    payload.repository.id = 999; // same name, another repository: ids are what GitHub keeps stable
    const response = await receiver.deliver({ body: JSON.stringify(payload) });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ ignored: true, reason: "repository is not configured" });
    expect(receiver.sent).toEqual([]);
    expect((await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).revision).toBe(0);
  });

  it("other pull_request actions (labeled) and other events (issues) are accepted 202 and ignored", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const labeled = await receiver.deliver({
      body: JSON.stringify(pullRequestPayload("labeled", pr, CLOSED_AT)),
    });
    expect(labeled.status).toBe(202);
    expect(await labeled.json()).toMatchObject({
      ignored: true,
      reason: "action labeled does not change a scope",
    });
    const issues = await receiver.deliver({
      event: "issues",
      body: JSON.stringify(pullRequestPayload("closed", pr, CLOSED_AT)),
    });
    expect(issues.status).toBe(202);
    expect(receiver.sent).toEqual([]);
    expect((await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).revision).toBe(0);
  });
});
