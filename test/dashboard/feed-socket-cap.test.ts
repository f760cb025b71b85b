/**
 * The one lock-feed object holds at most MAX_FEED_SOCKETS sockets in all (docs/security.md, "The
 * lock feed"): the per-token limit alone does not bound it (every GitHub OIDC ref, every minted
 * token has its own five). Past the cap a socket is refused 429 before any upgrade, with a rule
 * naming the feed's cap rather than the token's.
 */
import { describe, expect, it } from "vitest";
import {
  FEED_SOCKETS_RESERVED_UNBOUND,
  type FeedSocket,
  MAX_FEED_SOCKETS,
  MAX_FEED_SOCKETS_BOUND,
  MAX_FEED_SOCKETS_PER_REPOSITORY,
  MAX_FEED_SOCKETS_PER_TOKEN,
  openRefusal,
} from "../../durable-objects/feed-sockets";
import { feedRefusal } from "../../workers/routes/dashboard-feed-socket";

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

describe("the feed's reserve for unbound callers", () => {
  const bound = (owner: string, repository: number): FeedSocket => ({ ...socketOf(owner), repository });
  /** `repositories` repositories each at its full share: bound callers only. */
  const fullShares = (repositories: number) =>
    Array.from({ length: repositories }, (_, r) =>
      Array.from({ length: MAX_FEED_SOCKETS_PER_REPOSITORY }, (_, i) => bound(`jti:${r}-${i}`, 100 + r)),
    ).flat();

  it(`bound callers together take at most ${MAX_FEED_SOCKETS} − ${FEED_SOCKETS_RESERVED_UNBOUND}: a further repository's socket is refused, an admin's opens`, () => {
    expect(MAX_FEED_SOCKETS_BOUND).toBe(MAX_FEED_SOCKETS - FEED_SOCKETS_RESERVED_UNBOUND);
    // Five repositories, bound callers at the bound total (four full shares, the fifth's first 50).
    const open = fullShares(5).slice(0, MAX_FEED_SOCKETS_BOUND);
    expect(openRefusal(open, "jti:late", 104)).toBe("bound-full");
    expect(openRefusal(open, "jti:admin")).toBeNull();
    // Unbound callers fill the reserve, and the feed's cap is what refuses the next.
    const admins = distinctOwners(FEED_SOCKETS_RESERVED_UNBOUND);
    expect(openRefusal([...open, ...admins.slice(1)], "jti:admin")).toBeNull();
    expect(openRefusal([...open, ...admins], "jti:admin")).toBe("feed-full");
  });

  it("control: one socket under the bound total, a repository's next socket opens", () => {
    expect(openRefusal(fullShares(5).slice(0, MAX_FEED_SOCKETS_BOUND - 1), "jti:late", 104)).toBeNull();
  });

  it("the route answers the bound total's refusal as its own rule", () => {
    const err = feedRefusal("bound-full");
    expect(err.code).toBe("RATE_LIMITED");
    expect(err.detail).toMatchObject({ rule: "feed.sockets-bound", limit: MAX_FEED_SOCKETS_BOUND });
  });
});
