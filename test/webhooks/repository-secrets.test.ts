/**
 * Webhook secrets per repository and revisions from the future (docs/webhooks.md): a repository that
 * names its own secret accepts only deliveries signed with it; a close dated more than a few minutes
 * ahead of the receiver's clock is refused 400, recorded in R2 and never applied. Every refusal leaves
 * the scope open at its revision and enqueues no destroy.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDevApp } from "../../dev/entry/dev-app";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { MAX_REVISION_AHEAD_MS, WEBHOOK_AUDIT_PREFIX } from "../../workers/webhooks/future-revision";
import { signGithubPayload } from "../helpers/github-signature";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import {
  envWith,
  freshPullRequest,
  pullRequestPayload,
  recordingQueue,
  signedRequest,
  TEST_WEBHOOK_SECRET,
} from "./github-delivery";

const REPOSITORY_SECRET = "test-only-hello-world-webhook-secret";
const UPDATED_AT = "2026-03-01T10:00:00Z";

/** The example repository with a secret of its own, bound as WEBHOOK_SECRET_HELLO_WORLD. */
function receiver(ownSecret: boolean) {
  const recorded = recordingQueue();
  const bindings = envWith(recorded.queue, {
    WEBHOOK_SECRET_HELLO_WORLD: REPOSITORY_SECRET,
    SPONSON_REPOSITORIES: JSON.stringify([
      { ...DEFAULT_REPOSITORY, ...(ownSecret ? { webhookSecret: "WEBHOOK_SECRET_HELLO_WORLD" } : {}) },
    ]),
  });
  const app = createDevApp();
  return {
    sent: recorded.sent,
    deliver: async (body: string, secret: string) =>
      app.fetch(await signedRequest({ body, signature: await signGithubPayload(secret, body) }), bindings),
  };
}

async function expectOpen(pr: number) {
  expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
    status: "open",
    revision: 0,
  });
}

describe("a repository's own webhook secret", () => {
  it("a close signed with the shared secret is refused 401 for a repository with its own", async () => {
    const pr = freshPullRequest();
    const { deliver, sent } = receiver(true);
    const res = await deliver(
      JSON.stringify(pullRequestPayload("closed", pr, UPDATED_AT)),
      TEST_WEBHOOK_SECRET,
    );
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
    await expectOpen(pr);
    expect(sent).toEqual([]);
  });

  it("a close signed with the repository's own secret closes the scope", async () => {
    const pr = freshPullRequest();
    const { deliver } = receiver(true);
    const res = await deliver(
      JSON.stringify(pullRequestPayload("closed", pr, UPDATED_AT)),
      REPOSITORY_SECRET,
    );
    expect(res.status).toBe(200);
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
      status: "closed",
    });
  });

  it("control: without webhookSecret the shared secret still signs the repository's deliveries", async () => {
    const pr = freshPullRequest();
    const { deliver } = receiver(false);
    const res = await deliver(
      JSON.stringify(pullRequestPayload("closed", pr, UPDATED_AT)),
      TEST_WEBHOOK_SECRET,
    );
    expect(res.status).toBe(200);
  });
});

describe("a revision from the future", () => {
  it("a close dated an hour ahead is refused 400 webhook.future-revision, recorded, not applied", async () => {
    const pr = freshPullRequest();
    const recorded = recordingQueue();
    const ahead = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const deliveryId = crypto.randomUUID();
    const body = JSON.stringify(pullRequestPayload("closed", pr, ahead));
    const res = await createDevApp().fetch(
      await signedRequest({ body, deliveryId }),
      envWith(recorded.queue),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { rule: string }).rule).toBe("webhook.future-revision");
    await expectOpen(pr);
    expect(recorded.sent).toEqual([]);
    const listed = await env.RECEIPTS.list({ prefix: WEBHOOK_AUDIT_PREFIX });
    const key = listed.objects.map((o) => o.key).find((k) => k.endsWith(`-${deliveryId}.json`));
    expect(key).toBeDefined();
    const record = (await (await env.RECEIPTS.get(key as string))?.json()) as Record<string, unknown>;
    expect(record).toMatchObject({ delivery: deliveryId, scope: `pr-${pr}`, revision: Date.parse(ahead) });
  });

  it("control: a close dated a minute ahead (clock drift) is applied", async () => {
    const pr = freshPullRequest();
    const { deliver } = receiver(false);
    const ahead = new Date(Date.now() + MAX_REVISION_AHEAD_MS / 5).toISOString();
    const res = await deliver(JSON.stringify(pullRequestPayload("closed", pr, ahead)), TEST_WEBHOOK_SECRET);
    expect(res.status).toBe(200);
  });
});
