/**
 * Journey: an entry someone added by hand to an Auth0 application the service writes, shaped to
 * become Slack markup (`…/<!channel>`, `…/<https://evil.example/login|re-authenticate>`), is found
 * as an orphan (`GET /v1/orphans`), told by the sweep's own notice (workers/sweep/orphan-notices.ts)
 * and delivered by the notifications consumer to the emulated Slack webhook (the local sink,
 * `GET /v1/emulators/notifications`). What Slack receives pings no one and links nowhere: the key
 * sits in a code span, escaped (docs/operations.md, "Notifications").
 */
import { createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sinkSender } from "../../dev/entry/notification-sink";
import type { Env } from "../../shared/env";
import type { OrphanList } from "../../shared/schemas/orphans";
import type { Notification } from "../../workers/notify/notification";
import { handleQueueBatch } from "../../workers/queue/queue-handler";
import { NOTIFY_QUEUE_NAME } from "../../workers/queue/queue-names";
import { notifyNewOrphans } from "../../workers/sweep/orphan-notices";
import { apply, call, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appIdentity, freshPr } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant, TEST_M2M } from "../helpers/plans";
import { checkOnlyDestroyRunner } from "../queue/check-only-destroy-runner";

const app = testApp();
const SLACK_URL = "https://hooks.slack.com/services/T000/B000/test-only-slack-credential";

type Recorded = { target: string; body: { text?: string } };

/** An Auth0 application the service has written to, with `byHand` added to it afterwards. */
async function ownedClientWith(byHand: string[]): Promise<string> {
  const domain = freshAuth0Domain("slack");
  await seedTenant(domain);
  const plan = auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
  await apply(app, "preview", freshPr(), plan);
  const callbacks = (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: { callbacks: [...callbacks, ...byHand] } },
  });
  return domain;
}

/** The sweep's notices for the orphans `GET /v1/orphans` lists on `domain`'s application. */
async function orphanNotices(domain: string): Promise<Notification[]> {
  const res = await call(app, "GET", "/v1/orphans");
  expect(res.status).toBe(200);
  const orphans = ((await res.json()) as OrphanList).orphans.filter((o) => o.parent === appIdentity(domain));
  const queued: Notification[] = [];
  const queue = { send: async (body: Notification) => void queued.push(body) } as unknown as Queue;
  await notifyNewOrphans({ ...env, NOTIFY_QUEUE: queue } as Env, orphans, Date.now());
  return queued;
}

/** Delivers `notices` as the consumer does, Slack configured, to the local sink; what Slack got. */
async function slackTexts(notices: Notification[]): Promise<string[]> {
  const batch = createMessageBatch<unknown>(
    NOTIFY_QUEUE_NAME,
    notices.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })),
  );
  const slackEnv = {
    ...env,
    SPONSON_NOTIFY: JSON.stringify({ slack: { urlSecret: "SLACK_WEBHOOK_URL" } }),
    SLACK_WEBHOOK_URL: SLACK_URL,
  } as Env;
  await handleQueueBatch(batch, slackEnv, {
    runDestroy: checkOnlyDestroyRunner,
    sendNotification: sinkSender,
  });
  const res = await call(app, "GET", "/v1/emulators/notifications");
  expect(res.status).toBe(200);
  const { notifications } = (await res.json()) as { notifications: Recorded[] };
  return notifications.filter((n) => n.target === "slack").map((n) => n.body.text ?? "");
}

describe("an orphaned entry shaped as Slack markup", () => {
  it("reaches Slack as text in a code span: no channel ping, no disguised link", async () => {
    const ping = "https://pr-1.preview.example.com/<!channel>";
    const disguised = "https://pr-1.preview.example.com/<https://evil.example/login|re-authenticate>";
    const domain = await ownedClientWith([ping, disguised]);
    const notices = await orphanNotices(domain);
    expect(notices.map((n) => n.subject.key).sort()).toEqual([ping, disguised].sort());

    const texts = (await slackTexts(notices)).filter((text) => text.includes(domain));
    expect(texts).toHaveLength(2);
    const all = texts.join("\n");
    expect(all).not.toContain("<!channel>");
    expect(all).not.toMatch(/<https:\/\/evil\.example[^>]*\|/);
    expect(all).toContain("key: `https://pr-1.preview.example.com/&lt;!channel&gt;`");
    expect(all).toContain(
      "key: `https://pr-1.preview.example.com/&lt;https://evil.example/login|re-authenticate&gt;`",
    );
  });
});
