/**
 * The one lock-feed object holds at most MAX_FEED_SOCKETS sockets in all (docs/security.md, "The
 * lock feed"): the per-token limit alone does not bound it (every GitHub OIDC ref, every minted
 * token has its own five). Past the cap a socket is refused 429 before any upgrade, with a rule
 * naming the feed's cap rather than the token's.
 */
import { describe, expect, it } from "vitest";
import {
  type FeedSocket,
  MAX_FEED_SOCKETS,
  MAX_FEED_SOCKETS_PER_REPOSITORY,
  MAX_FEED_SOCKETS_PER_TOKEN,
  openRefusal,
} from "../../durable-objects/feed-sockets";

const socketOf = (owner: string): FeedSocket => ({ owner, expiresAt: Date.now() + 60_000 });

/** `count` sockets, each of its own token: no per-token limit is near. */
const distinctOwners = (count: number) => Array.from({ length: count }, (_, i) => socketOf(`jti:${i}`));

describe("the lock feed's global socket cap", () => {
  it(`is ${MAX_FEED_SOCKETS}, far above one token's ${MAX_FEED_SOCKETS_PER_TOKEN}`, () => {
    expect(MAX_FEED_SOCKETS).toBe(500);
  });

  it("admits a new token's socket below the cap and refuses it at the cap, naming the feed's rule", () => {
    expect(openRefusal(distinctOwners(MAX_FEED_SOCKETS - 1), "jti:new")).toBeNull();
    expect(openRefusal(distinctOwners(MAX_FEED_SOCKETS), "jti:new")).toBe("feed-full");
  });

  it("still refuses a token's sixth socket as the per-token rule well below the cap", () => {
    const open = Array.from({ length: MAX_FEED_SOCKETS_PER_TOKEN }, () => socketOf("jti:same"));
    expect(openRefusal(open, "jti:same")).toBe("per-token");
    expect(openRefusal(open, "jti:other")).toBeNull();
  });

  it("counts sockets without a record (accepted before records existed) toward the cap", () => {
    const open: Array<FeedSocket | null> = [...distinctOwners(MAX_FEED_SOCKETS - 1), null];
    expect(openRefusal(open, "jti:new")).toBe("feed-full");
  });
});

describe("each repository's share of the feed", () => {
  const bound = (owner: string, repository: number): FeedSocket => ({ ...socketOf(owner), repository });
  /** `count` sockets of one repository, each of its own token. */
  const ofRepository = (count: number, repository: number) =>
    Array.from({ length: count }, (_, i) => bound(`jti:${repository}-${i}`, repository));

  it(`is ${MAX_FEED_SOCKETS_PER_REPOSITORY}: a fifth of the feed, twenty tokens' worth`, () => {
    expect(MAX_FEED_SOCKETS_PER_REPOSITORY).toBe(100);
  });

  it("admits a repository's socket below its share and refuses it at the share, naming the repository's rule", () => {
    expect(openRefusal(ofRepository(MAX_FEED_SOCKETS_PER_REPOSITORY - 1, 7), "jti:new", 7)).toBeNull();
    expect(openRefusal(ofRepository(MAX_FEED_SOCKETS_PER_REPOSITORY, 7), "jti:new", 7)).toBe(
      "per-repository",
    );
  });

  it("another repository's socket, and an unbound one, still open beside a full repository", () => {
    const open = ofRepository(MAX_FEED_SOCKETS_PER_REPOSITORY, 7);
    expect(openRefusal(open, "jti:other", 8)).toBeNull();
    expect(openRefusal(open, "jti:admin")).toBeNull();
  });
});
