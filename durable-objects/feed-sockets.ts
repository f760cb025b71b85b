/**
 * What the lock feed keeps with each socket, and the pure decisions about it (docs/security.md, "The
 * lock feed"). A socket lives no longer than the token that opened it: the route records the
 * token's expiry, its id (when it has one, so a revocation reaches it) and whose token it is; the
 * feed closes the socket once the token expires or is revoked, and refuses a token's socket past
 * MAX_FEED_SOCKETS_PER_TOKEN. Nothing secret is kept: the token itself never reaches the object.
 */
import { z } from "zod";

/** How many lock-feed sockets one token may hold open at once (about one per dashboard tab). */
export const MAX_FEED_SOCKETS_PER_TOKEN = 5;

/**
 * How many sockets the one feed object holds in all: every GitHub OIDC ref and every minted token
 * has its own per-token budget, so only this bounds the object (docs/security.md, "The lock feed").
 */
export const MAX_FEED_SOCKETS = 500;

/**
 * How many of them the callers bound to one repository hold together: a repository's pull
 * requests (each ref its own five) can then never take the whole feed from the others'
 * dashboards (docs/security.md, "The lock feed"). Unbound callers (admins, unbound viewers) meet
 * only the feed's own cap.
 */
export const MAX_FEED_SOCKETS_PER_REPOSITORY = 100;

/**
 * Sockets bound callers never take: with five repositories or more their shares together reach
 * the feed's cap, and the admins' and unbound viewers' dashboards would be locked out of it.
 */
export const FEED_SOCKETS_RESERVED_UNBOUND = 50;

/** How many sockets the bound callers of every repository hold together. */
export const MAX_FEED_SOCKETS_BOUND = MAX_FEED_SOCKETS - FEED_SOCKETS_RESERVED_UNBOUND;

/** Close codes in the 4000–4999 range RFC 6455 §7.4.2 leaves to applications; the page reloads on them. */
export const FEED_CLOSE = {
  expired: { code: 4401, reason: "token expired" },
  revoked: { code: 4403, reason: "token revoked" },
} as const;
export type FeedClose = (typeof FEED_CLOSE)[keyof typeof FEED_CLOSE];

export const feedSocketSchema = z.object({
  /** Whose token this is: its `jti`, or the caller's identity for a token without one. */
  owner: z.string().min(1).max(1000),
  /** The token's `exp`, in ms since the epoch. */
  expiresAt: z.number().int().nonnegative(),
  /** The token's `jti`: looked up on the deny list at every event. */
  tokenId: z.string().min(1).max(200).optional(),
  /** A repository-bound caller's repository id: the socket hears only of locks it uses. */
  repository: z.number().int().positive().optional(),
});
export type FeedSocket = z.infer<typeof feedSocketSchema>;

/** A socket's record; null for one accepted before sockets carried their token's (closed as expired). */
export function feedSocketOf(attachment: unknown): FeedSocket | null {
  const parsed = feedSocketSchema.safeParse(attachment);
  return parsed.success ? parsed.data : null;
}

/** Why a socket must close now, or null while its token is good. */
export function closingOf(
  socket: FeedSocket | null,
  now: number,
  revoked: ReadonlySet<string>,
): FeedClose | null {
  if (socket === null || socket.expiresAt <= now) return FEED_CLOSE.expired;
  if (socket.tokenId !== undefined && revoked.has(socket.tokenId)) return FEED_CLOSE.revoked;
  return null;
}

/** Why a socket is refused: which limit it would pass. */
export type FeedRefusal = "per-token" | "per-repository" | "bound-full" | "feed-full";

/**
 * Why one more socket for this owner (bound to `repository`, if it is) is refused — the per-token
 * limit, its repository's share, the bound callers' total or the feed's cap — or null.
 */
export function openRefusal(
  open: ReadonlyArray<FeedSocket | null>,
  owner: string,
  repository?: number,
): FeedRefusal | null {
  if (open.filter((s) => s?.owner === owner).length >= MAX_FEED_SOCKETS_PER_TOKEN) return "per-token";
  const sameRepository = open.filter((s) => repository !== undefined && s?.repository === repository);
  if (sameRepository.length >= MAX_FEED_SOCKETS_PER_REPOSITORY) return "per-repository";
  if (
    repository !== undefined &&
    open.filter((s) => s?.repository !== undefined).length >= MAX_FEED_SOCKETS_BOUND
  )
    return "bound-full";
  return open.length >= MAX_FEED_SOCKETS ? "feed-full" : null;
}

/** The earliest expiry among open sockets: when the feed's alarm should next look. */
export function nextExpiry(open: ReadonlyArray<FeedSocket | null>): number | null {
  let next: number | null = null;
  for (const s of open) if (s !== null && (next === null || s.expiresAt < next)) next = s.expiresAt;
  return next;
}
