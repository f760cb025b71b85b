/**
 * Notifications (docs/operations.md, "Notifications"): what SPONSON_NOTIFY accepts, that a switched
 * off kind is never queued, that the generic webhook's body is signed with HMAC-SHA256 and carries
 * no secret, that the Slack URL (a credential) never reaches a log, and that a failing target is
 * retried.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../shared/env";
import type { Orphan } from "../../shared/schemas/orphans";
import {
  type NotificationSender,
  type OutboundNotification,
  SIGNATURE_HEADER,
} from "../../workers/notify/deliver";
import type { Notification } from "../../workers/notify/notification";
import { notify } from "../../workers/notify/notify";
import { handleQueueBatch } from "../../workers/queue/queue-handler";
import { NOTIFY_QUEUE_NAME } from "../../workers/queue/queue-names";
import { notifyNewOrphans, ORPHANS_TOLD_KEY } from "../../workers/sweep/orphan-notices";
import { checkOnlyDestroyRunner } from "../queue/check-only-destroy-runner";

const SLACK_URL = "https://hooks.slack.com/services/T000/B000/test-only-slack-credential";
const HMAC_SECRET = "test-only-notify-hmac-secret";

const notification: Notification = {
  id: "orphan-found:auth0:t.us.auth0.com:client:app:https://x.example.com",
  kind: "orphan-found",
  at: 1_796_000_000_000,
  summary: "an entry no scope owns",
  subject: { parent: "auth0:t.us.auth0.com:client:app", key: "https://x.example.com" },
};

function recordingQueue() {
  const sent: unknown[] = [];
  return { sent, queue: { send: async (body: unknown) => void sent.push(body) } as unknown as Queue };
}

function configured(notify: unknown, extra: Record<string, unknown> = {}): Env {
  return {
    ...env,
    SPONSON_NOTIFY: JSON.stringify(notify),
    SLACK_WEBHOOK_URL: SLACK_URL,
    NOTIFY_WEBHOOK_SECRET: HMAC_SECRET,
    ...extra,
  } as Env;
}

async function deliver(testEnv: Env, send: NotificationSender) {
  const batch = createMessageBatch<unknown>(NOTIFY_QUEUE_NAME, [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: notification },
  ]);
  const handled = await handleQueueBatch(batch, testEnv, {
    runDestroy: checkOnlyDestroyRunner,
    sendNotification: send,
  });
  return { handled, result: await getQueueResult(batch, createExecutionContext()) };
}

async function hmacHex(secret: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

afterEach(() => vi.restoreAllMocks());

describe("queueing a notification", () => {
  it("a kind switched off in SPONSON_NOTIFY is never queued", async () => {
    const q = recordingQueue();
    const testEnv = configured({ kinds: { "orphan-found": false } }, { NOTIFY_QUEUE: q.queue });
    expect(await notify(testEnv, notification)).toBe("off");
    expect(q.sent).toEqual([]);
    expect(await notify(testEnv, { ...notification, kind: "scope-lingering" })).toBe("queued");
    expect(q.sent).toHaveLength(1);
  });

  it.each([
    [
      "a plain http webhook",
      { webhook: { url: "http://ops.example.com/h", secret: "NOTIFY_WEBHOOK_SECRET" } },
    ],
    [
      "a webhook URL with credentials",
      { webhook: { url: "https://u:p@ops.example.com/h", secret: "NOTIFY_WEBHOOK_SECRET" } },
    ],
    [
      "one of the service's own secrets",
      { webhook: { url: "https://ops.example.com/h", secret: "GITHUB_WEBHOOK_SECRET" } },
    ],
    ["a Slack URL written in the config", { slack: { url: SLACK_URL } }],
    ["an unknown kind", { kinds: { "everything-fine": false } }],
  ])("refuses %s: nothing is queued, the failure is logged without a value", async (_name, config) => {
    const q = recordingQueue();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await notify(configured(config, { NOTIFY_QUEUE: q.queue }), notification)).toBe("failed");
    expect(q.sent).toEqual([]);
    expect(errors.mock.calls.flat().join(" ")).toMatch(/SPONSON_NOTIFY is not valid/);
  });
});

describe("delivering a notification", () => {
  it("signs the generic webhook's body (X-Sponson-Signature-256) and posts Slack's text; no secret in either", async () => {
    const out: OutboundNotification[] = [];
    const logs = vi.spyOn(console, "log").mockImplementation(() => {});
    const testEnv = configured({
      slack: { urlSecret: "SLACK_WEBHOOK_URL" },
      webhook: { url: "https://ops.example.com/sponson", secret: "NOTIFY_WEBHOOK_SECRET" },
    });
    const { handled, result } = await deliver(testEnv, async (_env, o) => {
      out.push(o);
      return new Response("ok");
    });
    expect(handled).toMatchObject({
      queue: "notifications",
      reports: [{ status: "delivered", targets: ["slack", "webhook"] }],
    });
    expect(result.explicitAcks).toHaveLength(1);
    const [slack, webhook] = out;
    expect(slack?.url).toBe(SLACK_URL);
    expect(JSON.parse(slack?.init.body ?? "{}").text).toContain("orphan-found");
    expect(webhook?.url).toBe("https://ops.example.com/sponson");
    expect(JSON.parse(webhook?.init.body ?? "{}")).toEqual(notification);
    expect(webhook?.init.headers[SIGNATURE_HEADER]).toBe(
      `sha256=${await hmacHex(HMAC_SECRET, webhook?.init.body ?? "")}`,
    );
    for (const o of out) expect(o.init.body).not.toContain(HMAC_SECRET);
    const logged = logs.mock.calls.flat().join(" ");
    expect(logged).toContain("orphan-found");
    expect(logged).not.toContain(SLACK_URL);
    expect(logged).not.toContain("test-only-slack-credential");
  });

  it("a target that fails is retried with backoff, and its URL stays out of the error", async () => {
    const warns = vi.spyOn(console, "warn").mockImplementation(() => {});
    const testEnv = configured({ slack: { urlSecret: "SLACK_WEBHOOK_URL" } });
    const { handled, result } = await deliver(testEnv, async () => {
      throw new TypeError(`fetch to ${SLACK_URL} failed`);
    });
    expect(handled).toMatchObject({
      queue: "notifications",
      reports: [{ status: "retry", error: "slack unreachable", delaySeconds: 30 }],
    });
    expect(result.retryMessages).toHaveLength(1);
    expect(warns.mock.calls.flat().join(" ")).not.toContain("test-only-slack-credential");
  });

  it("a webhook whose signing secret is not set is retried, naming the secret, never sending unsigned", async () => {
    const sent: OutboundNotification[] = [];
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const testEnv = configured({
      webhook: { url: "https://ops.example.com/sponson", secret: "MISSING_NOTIFY_SECRET" },
    });
    const { handled } = await deliver(testEnv, async (_e, o) => {
      sent.push(o);
      return new Response("ok");
    });
    expect(handled).toMatchObject({
      reports: [{ status: "retry", error: expect.stringContaining("MISSING_NOTIFY_SECRET") }],
    });
    expect(sent).toEqual([]);
  });
});

describe("orphan notices (issue 33)", () => {
  it("an orphan whose notice failed to queue is told at the next sweep, and only then remembered", async () => {
    const orphan = {
      parent: "auth0:t.us.auth0.com:client:app",
      op: "auth0.callbacks",
      key: `https://orphan-${crypto.randomUUID()}.example.com`,
      connection: "auth0-default",
      environments: ["preview"],
    } satisfies Orphan;
    const sent: unknown[] = [];
    let failing = true;
    const queue = {
      send: async (body: unknown) => {
        if (failing) throw new Error("queue unavailable");
        sent.push(body);
      },
    } as unknown as Queue;
    const testEnv = { ...env, NOTIFY_QUEUE: queue } as Env;
    await env.RECEIPTS.delete(ORPHANS_TOLD_KEY);
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await notifyNewOrphans(testEnv, [orphan], 1)).toBe(0);
    expect(sent).toEqual([]);
    failing = false;
    expect(await notifyNewOrphans(testEnv, [orphan], 2)).toBe(1);
    expect(sent).toMatchObject([{ kind: "orphan-found" }]);
    expect(await notifyNewOrphans(testEnv, [orphan], 3)).toBe(0);
    expect(sent).toHaveLength(1);
  });
});
