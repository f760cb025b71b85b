/**
 * The record the lock feed keeps with a dashboard socket (durable-objects/feed-sockets.ts), made
 * from the verified caller: whose token it is (its `jti`; without one, the identity the rate limit
 * keys by), when it expires and, for a repository-bound caller, the repository it may hear of;
 * and the problem the route answers when the feed refuses one more (docs/security.md, "The lock feed").
 */
import {
  FEED_SOCKETS_RESERVED_UNBOUND,
  type FeedRefusal,
  type FeedSocket,
  MAX_FEED_SOCKETS,
  MAX_FEED_SOCKETS_BOUND,
  MAX_FEED_SOCKETS_PER_REPOSITORY,
  MAX_FEED_SOCKETS_PER_TOKEN,
} from "../../durable-objects/feed-sockets";
import { SponsonError } from "../../shared/errors";
import type { Caller } from "../auth/caller";
import { rateLimitKey } from "../http/rate-limit";

export function feedSocketFor(caller: Caller, expiresAt: number, repository: number | undefined): FeedSocket {
  const tokenId = caller.kind === "service" ? caller.tokenId : undefined;
  return {
    owner: tokenId === undefined ? rateLimitKey(caller) : `jti:${JSON.stringify(tokenId)}`,
    expiresAt,
    ...(tokenId === undefined ? {} : { tokenId }),
    ...(repository === undefined ? {} : { repository }),
  };
}

/** What each of the feed's limits answers (`429 RATE_LIMITED`, the rule naming the limit). */
const REFUSALS: Record<FeedRefusal, { rule: string; limit: number; message: string }> = {
  "per-token": {
    rule: "feed.sockets-per-token",
    limit: MAX_FEED_SOCKETS_PER_TOKEN,
    message: `one token holds at most ${MAX_FEED_SOCKETS_PER_TOKEN} lock-feed sockets; close another dashboard tab`,
  },
  "per-repository": {
    rule: "feed.sockets-per-repository",
    limit: MAX_FEED_SOCKETS_PER_REPOSITORY,
    message: `the callers of one repository hold at most ${MAX_FEED_SOCKETS_PER_REPOSITORY} lock-feed sockets together`,
  },
  "bound-full": {
    rule: "feed.sockets-bound",
    limit: MAX_FEED_SOCKETS_BOUND,
    message: `the callers bound to a repository hold at most ${MAX_FEED_SOCKETS_BOUND} lock-feed sockets together (${FEED_SOCKETS_RESERVED_UNBOUND} are kept for unbound callers)`,
  },
  "feed-full": {
    rule: "feed.sockets-total",
    limit: MAX_FEED_SOCKETS,
    message: `the lock feed holds at most ${MAX_FEED_SOCKETS} sockets in all`,
  },
};

/** The feed's refusal (its 429 body names the limit) as the route's problem. */
export function feedRefusal(body: string): SponsonError {
  const refusal = REFUSALS[body as FeedRefusal] ?? REFUSALS["feed-full"];
  return new SponsonError("RATE_LIMITED", `${refusal.message} (the page still refreshes on its own)`, {
    rule: refusal.rule,
    limit: refusal.limit,
  });
}
