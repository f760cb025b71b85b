/**
 * What Slack shows an operator (docs/operations.md, "Notifications"): times as people read them
 * (UTC, and how long ago or how soon), and the dashboard page of the lock, object, run or scope
 * the notice is about, on the service's public URL (SPONSON_PUBLIC_URL). Text from the service's
 * own records (keys, provider entries) is escaped, so it can never make a Slack link or mention.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../shared/env";
import { objectHash } from "../../workers/dashboard/object-hash";
import { outboundRequests } from "../../workers/notify/deliver";
import type { Notification } from "../../workers/notify/notification";

const SLACK_URL = "https://hooks.slack.com/services/T000/B000/test-only-slack-credential";
const NOW = Date.UTC(2026, 11, 7, 18, 44, 0);
const MIN = 60_000;
const PARENT = "auth0:acme.us.auth0.com:client:preview-app";

async function slackText(n: Notification, publicUrl?: string): Promise<string> {
  const testEnv = {
    ...env,
    SLACK_WEBHOOK_URL: SLACK_URL,
    ...(publicUrl === undefined ? { SPONSON_PUBLIC_URL: undefined } : { SPONSON_PUBLIC_URL: publicUrl }),
  } as Env;
  const [slack] = await outboundRequests(testEnv, { slack: { urlSecret: "SLACK_WEBHOOK_URL" } }, n, NOW);
  return (JSON.parse(slack?.init.body ?? "{}") as { text: string }).text;
}

const takeover = (lock: string): Notification => ({
  id: `lock-taken-over:${lock}:7`,
  kind: "lock-taken-over",
  at: NOW - MIN,
  summary: `${lock} was taken over by run-b after the lease of run-a expired`,
  subject: {
    lock,
    previousHolder: "run-a",
    previousToken: 6,
    expiredAt: NOW - 4 * MIN,
    holder: "run-b",
    token: 7,
  },
});

describe("Slack text", () => {
  it("says when in UTC and how long ago, and links the object's dashboard page", async () => {
    const lock = `_locks/${await objectHash(PARENT)}`;
    const text = await slackText(takeover(lock), "https://sponson.example.com");
    expect(text).toContain("expiredAt: 2026-12-07 18:40 UTC (4 min ago)");
    expect(text).toContain("2026-12-07 18:43 UTC (1 min ago)");
    expect(text).not.toMatch(/\b1796\d{9}\b/);
    expect(text).toContain(`<https://sponson.example.com/dashboard/objects/${await objectHash(PARENT)}|`);
  });

  it("a time still to come reads `in …`", async () => {
    const n: Notification = {
      id: "hold-ends",
      kind: "list-near-capacity",
      at: NOW,
      summary: "a list is nearly full",
      subject: { lock: "_locks/0123456789abcdef0123456789abcdef", until: NOW + 4 * MIN },
    };
    expect(await slackText(n, "https://sponson.example.com")).toContain(
      "until: 2026-12-07 18:48 UTC (in 4 min)",
    );
  });

  it("a scope lock links the scope on the dashboard; a scope's notice links the scope", async () => {
    const scopeLock = await slackText(
      takeover("scope:186853002/preview/pr-9"),
      "https://sponson.example.com/",
    );
    expect(scopeLock).toContain("<https://sponson.example.com/dashboard?environment=preview&amp;scope=pr-9|");
    const dead: Notification = {
      id: "destroy-dead-lettered:m1",
      kind: "destroy-dead-lettered",
      at: NOW,
      summary: "the destroy of preview/pr-9100 failed every retry",
      subject: { repositoryId: 186853002, environment: "preview", scope: "pr-9100", attempts: 6 },
    };
    expect(await slackText(dead, "https://sponson.example.com")).toContain(
      "<https://sponson.example.com/dashboard?environment=preview&amp;scope=pr-9100|",
    );
  });

  it("an orphan links its object's page", async () => {
    const orphan: Notification = {
      id: "orphan-found:x",
      kind: "orphan-found",
      at: NOW,
      summary: "an entry no scope owns",
      subject: { parent: PARENT, key: "https://x.example.com" },
    };
    expect(await slackText(orphan, "https://sponson.example.com")).toContain(
      `/dashboard/objects/${await objectHash(PARENT)}|`,
    );
  });

  it("without SPONSON_PUBLIC_URL there is no link, and nothing else is missing", async () => {
    const text = await slackText(takeover("scope:186853002/preview/pr-9"));
    expect(text).not.toContain("dashboard");
    expect(text).toContain("expiredAt: 2026-12-07 18:40 UTC (4 min ago)");
  });

  it("text from records is escaped: a provider entry cannot make a link or a mention", async () => {
    const orphan: Notification = {
      id: "orphan-found:y",
      kind: "orphan-found",
      at: NOW,
      summary: "an entry no scope owns: <https://evil.example|click> <!channel>",
      subject: { parent: PARENT, key: "<https://evil.example|click> & more" },
    };
    const text = await slackText(orphan);
    expect(text).not.toContain("<https://evil.example");
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("&lt;https://evil.example|click&gt; &amp; more");
  });

  it("keys and names are code spans, in the facts and where the summary names them", async () => {
    const lock = `_locks/${await objectHash(PARENT)}`;
    const [title, facts] = (await slackText(takeover(lock))).split("\n");
    expect(title).toBe(
      `[sponson] lock-taken-over: \`${lock}\` was taken over by \`run-b\` after the lease of \`run-a\` expired`,
    );
    expect(facts).toContain(`lock: \`${lock}\` · previousHolder: \`run-a\` · previousToken: 6 · `);
  });

  it("a backtick in a key cannot close its code span: it shows as ˋ (U+02CB)", async () => {
    const key = "https://x.example.com/a`<!here>`b";
    const orphan: Notification = {
      id: "orphan-found:z",
      kind: "orphan-found",
      at: NOW,
      summary: `an entry no scope owns: ${key}`,
      subject: { parent: PARENT, key },
    };
    const [title, facts] = (await slackText(orphan)).split("\n");
    const span = "`https://x.example.com/a\u02cb&lt;!here&gt;\u02cbb`";
    expect(title).toBe(`[sponson] orphan-found: an entry no scope owns: ${span}`);
    expect(facts).toBe(`parent: \`${PARENT}\` · key: ${span}`);
  });

  it("a line break in a value stays inside its line", async () => {
    const orphan: Notification = {
      id: "orphan-found:n",
      kind: "orphan-found",
      at: NOW,
      summary: "an entry no scope owns",
      subject: { parent: PARENT, key: "https://x.example.com/a\n<!channel>" },
    };
    const lines = (await slackText(orphan)).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("key: `https://x.example.com/a &lt;!channel&gt;`");
  });

  it("a `|` in SPONSON_PUBLIC_URL cannot end the link's URL early", async () => {
    const text = await slackText(takeover("scope:186853002/preview/pr-9"), "https://sponson.example.com/a|b");
    expect(text).toContain(
      "<https://sponson.example.com/a%7Cb/dashboard?environment=preview&amp;scope=pr-9|",
    );
  });
});
