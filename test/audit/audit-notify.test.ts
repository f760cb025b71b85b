/**
 * Each audit record as a notification (docs/operations.md, "The audit stream"): the kind `audit` is
 * off unless an operator opts in (`"kinds": { "audit": true }`); then the sweep forwards every
 * record written since it was switched on, once, in write order, each carrying the record itself
 * and signed like every webhook notification, so a SIEM can take it. A send that fails is not
 * skipped: the next sweep sends it.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { Env } from "../../shared/env";
import { AUDIT_FORWARD_STATE, forwardAudit } from "../../workers/audit/audit-forward";
import { recordHold } from "../../workers/audit/audit-trail";
import { ORPHAN_AUDIT_PREFIX } from "../../workers/lock-views/owned-objects";
import { outboundRequests, SIGNATURE_HEADER } from "../../workers/notify/deliver";
import { type Notification, notificationSchema } from "../../workers/notify/notification";
import { kindEnabled, notifyConfigSchema } from "../../workers/notify/notify-config";
import { freshScopeKey } from "../helpers/locks";

const HMAC_SECRET = "test-only-audit-hmac-secret";
const MINUTE = 60_000;

function queue(fail = false) {
  const sent: Notification[] = [];
  const q = {
    send: async (body: unknown) => {
      if (fail) throw new Error("queue down");
      sent.push(body as Notification);
    },
  } as unknown as Queue;
  return { sent, q };
}

function configured(notify: unknown, q: Queue): Env {
  return {
    ...env,
    SPONSON_NOTIFY: JSON.stringify(notify),
    NOTIFY_WEBHOOK_SECRET: HMAC_SECRET,
    NOTIFY_QUEUE: q,
  } as Env;
}

const optedIn = {
  webhook: { url: "https://siem.example.com/sponson", secret: "NOTIFY_WEBHOOK_SECRET" },
  kinds: { audit: true },
};

async function holdRecord(key: string, at: number) {
  await recordHold(env as Env, { key, action: "set", actor: "alice", reason: "audit test", hold: null, at });
}

const mine = (sent: Notification[], key: string) =>
  sent.filter((n) => (n.record as { key?: string } | undefined)?.key === key);

beforeEach(async () => {
  await env.RECEIPTS.delete(AUDIT_FORWARD_STATE);
});

describe("the audit kind", () => {
  it("is off unless an operator opts in; every other kind stays on unless switched off", async () => {
    expect(kindEnabled({}, "audit")).toBe(false);
    expect(kindEnabled({ kinds: { audit: true } }, "audit")).toBe(true);
    expect(kindEnabled({}, "orphan-found")).toBe(true);
    expect(notifyConfigSchema.safeParse({ kinds: { audit: true } }).success).toBe(true);
    const { sent, q } = queue();
    await holdRecord(freshScopeKey("audit-off"), Date.now());
    const report = await forwardAudit(configured({ webhook: optedIn.webhook }, q), Date.now() + MINUTE);
    expect(report).toEqual({ status: "off" });
    expect(sent).toEqual([]);
  });

  it("opted in: records written after it was switched on are sent once each, with the record, in write order", async () => {
    const { sent, q } = queue();
    const testEnv = configured(optedIn, q);
    const before = freshScopeKey("audit-before");
    await holdRecord(before, Date.now());
    // The first sweep after opting in starts the stream there: earlier records are not sent.
    await forwardAudit(testEnv, Date.now() + MINUTE);
    expect(mine(sent, before)).toEqual([]);

    const first = freshScopeKey("audit-first");
    const second = freshScopeKey("audit-second");
    await holdRecord(first, Date.now());
    await holdRecord(second, Date.now());
    const report = await forwardAudit(testEnv, Date.now() + 2 * MINUTE);
    expect(report.status).toBe("forwarded");
    const told = [...mine(sent, first), ...mine(sent, second)];
    expect(told.map((n) => notificationSchema.parse(n).kind)).toEqual(["audit", "audit"]);
    expect(told[0]?.record).toMatchObject({ kind: "hold", key: first, actor: "alice", reason: "audit test" });
    expect(sent.indexOf(told[0] as Notification)).toBeLessThan(sent.indexOf(told[1] as Notification));
    expect(told[0]?.summary).toContain(first);

    // Sent once: the next sweep goes on from where this one stopped.
    await forwardAudit(testEnv, Date.now() + 3 * MINUTE);
    expect(mine(sent, first)).toHaveLength(1);
  });

  it("is signed like every webhook notification, the record in the signed body", async () => {
    const { sent, q } = queue();
    const testEnv = configured(optedIn, q);
    await forwardAudit(testEnv, Date.now() + MINUTE);
    const key = freshScopeKey("audit-signed");
    await holdRecord(key, Date.now());
    await forwardAudit(testEnv, Date.now() + 2 * MINUTE);
    const n = mine(sent, key)[0] as Notification;
    const [webhook] = await outboundRequests(testEnv, notifyConfigSchema.parse(optedIn), n);
    expect(JSON.parse(webhook?.init.body ?? "{}").record).toMatchObject({ kind: "hold", key });
    const expected = await hmac(HMAC_SECRET, webhook?.init.body ?? "");
    expect(webhook?.init.headers[SIGNATURE_HEADER]).toBe(`sha256=${expected}`);
  });

  it("a send that fails is not skipped: the next sweep sends it", async () => {
    const down = queue(true);
    await forwardAudit(configured(optedIn, down.q), Date.now() + MINUTE);
    const key = freshScopeKey("audit-retry");
    await holdRecord(key, Date.now());
    const failed = await forwardAudit(configured(optedIn, down.q), Date.now() + 2 * MINUTE);
    expect(failed).toMatchObject({ status: "forwarded", stoppedAt: expect.any(String) });
    const up = queue();
    await forwardAudit(configured(optedIn, up.q), Date.now() + 3 * MINUTE);
    expect(mine(up.sent, key)).toHaveLength(1);
  });
});

describe("an audit record in Slack", () => {
  it("an orphan removal's entry key is a code span in the summary too: no channel ping, no link", async () => {
    const { sent, q } = queue();
    const slack = { slack: { urlSecret: "SLACK_WEBHOOK_URL" }, kinds: { audit: true } };
    const testEnv = {
      ...configured(slack, q),
      SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T/B/test",
    };
    await forwardAudit(testEnv, Date.now() + MINUTE);
    const key = `https://pr-1.preview.example.com/${crypto.randomUUID()}/<!channel>`;
    const at = Date.now();
    await env.RECEIPTS.put(
      `${ORPHAN_AUDIT_PREFIX}${at}-run-slack.json`,
      JSON.stringify({
        parent: "auth0:t.us.auth0.com:client:app",
        op: "auth0.callbackUrl",
        key,
        reason: "left by hand",
        actor: "alice",
        at,
        runId: "run-slack",
        outcome: "removed",
      }),
    );
    await forwardAudit(testEnv, Date.now() + 2 * MINUTE);
    const n = sent.find((x) => (x.record as { key?: string } | undefined)?.key === key) as Notification;
    const [out] = await outboundRequests(testEnv, notifyConfigSchema.parse(slack), n);
    const [title] = (JSON.parse(out?.init.body ?? "{}") as { text: string }).text.split("\n");
    expect(title).toContain(`orphan removal of \`${key.replace("<!channel>", "&lt;!channel&gt;")}\` on`);
    expect(title).not.toContain("<!channel>");
  });
});

async function hmac(secret: string, body: string): Promise<string> {
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
