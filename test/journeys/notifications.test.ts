/**
 * Journey (issue 33): a destroy that failed every retry lands on the dead-letter queue; its
 * consumer parks it and puts a `destroy-dead-lettered` notification on the real notifications
 * queue; the Worker's own consumer (the dev entry's, as under `npm start`) delivers it to the local
 * sink, where `GET /v1/emulators/notifications` shows it: no secret in it, nothing sent anywhere.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEAD_LETTER_QUEUE_NAME, type QueuedDestroy } from "../../workers/queue/queued-destroy";
import { call, testApp } from "../helpers/app";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { batchOf, consume } from "../queue/queue-batches";
import { freshPullRequest } from "../webhooks/github-delivery";

type Recorded = { target: string; body: { kind?: string; subject?: Record<string, unknown> } };

const app = testApp();

/** Polls the sink (reading state, no fixed sleep) until the background consumer delivered. */
async function recordedFor(scope: string): Promise<Recorded[]> {
  for (let i = 0; i < 3000; i++) {
    const res = await call(app, "GET", "/v1/emulators/notifications");
    expect(res.status).toBe(200);
    const { notifications } = (await res.json()) as { notifications: Recorded[] };
    const ours = notifications.filter((n) => n.body.subject?.scope === scope);
    if (ours.length > 0) return ours;
    await scheduler.wait(5);
  }
  throw new Error(`no notification for ${scope} reached the local sink`);
}

describe("a dead-lettered destroy", () => {
  it("is told to the operators: the notification reaches the local sink through the real queue", async () => {
    const scope = `pr-${freshPullRequest()}`;
    const job: QueuedDestroy = {
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      revision: Date.parse("2026-11-30T10:00:00Z"),
      deliveryId: crypto.randomUUID(),
    };
    const batch = batchOf(DEAD_LETTER_QUEUE_NAME, [job], 6);
    const { handled } = await consume(batch);
    expect(handled).toMatchObject({ queue: "dead-letters", stored: [expect.any(String)] });

    const [recorded, ...more] = await recordedFor(scope);
    expect(more).toEqual([]);
    // The test Worker configures no target: the sink records what would have been sent.
    expect(recorded?.target).toBe("none");
    expect(recorded?.body).toMatchObject({
      id: `destroy-dead-lettered:${batch.messages[0]?.id}`,
      kind: "destroy-dead-lettered",
      subject: { repositoryId: DEFAULT_REPOSITORY.id, environment: "preview", scope, attempts: 6 },
    });
    const text = JSON.stringify(recorded);
    for (const secret of [env.GITHUB_WEBHOOK_SECRET, env.AUTH0_CLIENT_SECRET, env.SERVICE_SIGNING_KEY]) {
      expect(typeof secret).toBe("string");
      expect(text).not.toContain(secret as string);
    }
  });

  it("the sink is the dev entry's: the route needs a token like every other read", async () => {
    const res = await call(app, "GET", "/v1/emulators/notifications", undefined, { authorization: "" });
    expect(res.status).toBe(401);
  });
});
