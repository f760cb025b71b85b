/**
 * The lock feed's share per repository (docs/security.md, "The lock feed"), through the HTTP door:
 * acme/other's callers — bound ci tokens, each with its own five sockets, and a pull-request job's
 * GitHub OIDC token — hold at most MAX_FEED_SOCKETS_PER_REPOSITORY sockets together. The last one
 * under the share opens; the next, of either kind, is refused 429 RATE_LIMITED rule
 * `feed.sockets-per-repository` before any upgrade. The control: Hello-World's callers and an
 * unbound admin still open theirs.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MAX_FEED_SOCKETS_PER_REPOSITORY,
  MAX_FEED_SOCKETS_PER_TOKEN,
} from "../../durable-objects/feed-sockets";
import { mintServiceToken } from "../helpers/tokens";
import {
  FOREIGN,
  OWNING,
  type TwoRepositories,
  twoRepositories,
  twoRepositoryEnv,
} from "../helpers/two-repositories";
import { ORIGIN } from "./session";

let t: TwoRepositories;
const opened: WebSocket[] = [];

async function open(
  token: string,
): Promise<{ status: number; body: { code?: string; rule?: string; limit?: number } | null }> {
  const ctx = createExecutionContext();
  const res = await t.app.request(
    `${ORIGIN}/dashboard/feed`,
    { headers: { upgrade: "websocket", authorization: `Bearer ${token}` } },
    twoRepositoryEnv(),
    ctx,
  );
  await waitOnExecutionContext(ctx);
  if (res.webSocket) {
    res.webSocket.accept();
    opened.push(res.webSocket);
    return { status: res.status, body: null };
  }
  return { status: res.status, body: (await res.json().catch(() => null)) as { code?: string } | null };
}

/** A ci token bound to `repository`, each of its own subject: a token's own five sockets. */
const ciToken = (repository: { name: string }, n: number) =>
  mintServiceToken({
    role: "ci",
    scopes: ["preview/*"],
    repository: repository.name,
    sub: `feed-share-${n}`,
  });

beforeAll(async () => {
  t = await twoRepositories();
});

afterAll(() => {
  for (const ws of opened) ws.close(1000, "done");
});

describe("a repository's share of the lock feed", () => {
  it(`acme/other's ${MAX_FEED_SOCKETS_PER_REPOSITORY}th socket opens; the next is refused, a ci token's and a GitHub job's alike`, async () => {
    const tokens = MAX_FEED_SOCKETS_PER_REPOSITORY / MAX_FEED_SOCKETS_PER_TOKEN;
    for (let n = 0; n < tokens; n++) {
      const token = await ciToken(FOREIGN, n);
      for (let i = 0; i < MAX_FEED_SOCKETS_PER_TOKEN; i++) expect((await open(token)).status).toBe(101);
    }
    for (const token of [await ciToken(FOREIGN, tokens), await t.token(FOREIGN, "github")]) {
      const refused = await open(token);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        code: "RATE_LIMITED",
        rule: "feed.sockets-per-repository",
        limit: MAX_FEED_SOCKETS_PER_REPOSITORY,
      });
    }
  });

  it("control: Hello-World's ci token and GitHub job, and an unbound admin, still open theirs", async () => {
    expect((await open(await ciToken(OWNING, 0))).status).toBe(101);
    expect((await open(await t.token(OWNING, "github"))).status).toBe(101);
    expect((await open(await mintServiceToken({ role: "admin", sub: "feed-share-admin" }))).status).toBe(101);
  });
});
