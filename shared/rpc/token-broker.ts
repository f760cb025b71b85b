/**
 * The fleet's token object's RPC surface (durable-objects/token-broker.ts implements it): one object
 * per connection credential holds the current access token, so every isolate of the fleet shares one
 * exchange per token lifetime (docs/design.md, "Provider tokens").
 *
 * The object never exchanges anything itself: the caller that is told `exchange` buys the token with
 * the adapter's own code (hosts from service configuration only) and hands it over with `store`.
 * Times are the caller's clock (`nowMs`), so tests decide how time passes.
 */
import { z } from "zod";

/** What `take` answers. */
export type TokenAnswer =
  /** The shared token; reuse it until `refreshAtMs` (it may already be past: then use it once). */
  | { kind: "token"; token: string; refreshAtMs: number }
  /** No usable token: you hold the claim, exchange, then `store` (or `abandon` on failure). */
  | { kind: "exchange"; claim: string }
  /** The refresher failed or went silent: exchange on your own (and `store` with no claim). */
  | { kind: "self" }
  /** Still no token at the `waitUntilMs` the caller gave (its lease deadline): it gives up. */
  | { kind: "late" };

export const storedTokenSchema = z.object({
  token: z.string().min(1),
  /** Shared callers stop reusing it here (shortly before expiry) and one of them refreshes. */
  refreshAtMs: z.number().finite(),
  /** Past this nobody is given it. */
  expiresAtMs: z.number().finite(),
});
export type StoredToken = z.infer<typeof storedTokenSchema>;

/** What the object says about itself: never the token. */
export interface TokenBrokerStatus {
  holdsToken: boolean;
  refreshing: boolean;
  waiting: number;
}

export interface TokenBrokerApi {
  /**
   * A wait for another caller's exchange ends at `waitUntilMs` (the caller's clock) when that
   * comes before the claim's own expiry: a lease holder must not wait past its deadline.
   */
  take(nowMs: number, waitUntilMs?: number): Promise<TokenAnswer>;
  /** Hands over a token bought under `claim` (null: bought after a `self` answer). */
  store(claim: string | null, stored: StoredToken): Promise<void>;
  /** The claimed exchange failed: waiters are told to exchange on their own. */
  abandon(claim: string): Promise<void>;
  /** A caller saw a 401 with the token whose SHA-256 (hex) this is: forget it if it is current. */
  drop(tokenDigest: string): Promise<boolean>;
  status(): Promise<TokenBrokerStatus>;
}

/** SHA-256 hex of a text (token digests, credential fingerprints). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The object's name: the connection and the fingerprint of its credential (endpoint, client id and
 * secret), so a rotated secret is a new object and never reuses a token bought with the old one.
 */
export function tokenObjectName(connection: string, fingerprint: string): string {
  return `${connection}\n${fingerprint}`;
}
