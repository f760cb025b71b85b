/**
 * The record the lock feed keeps with a dashboard socket (durable-objects/feed-sockets.ts), made
 * from the verified caller: whose token it is (its `jti`; without one, the identity the rate limit
 * keys by), when it expires and, for a repository-bound viewer, the repository it may hear of.
 */
import type { FeedSocket } from "../../durable-objects/feed-sockets";
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
