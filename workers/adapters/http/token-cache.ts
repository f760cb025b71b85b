/**
 * OAuth client-credentials tokens in two levels (docs/design.md, "Provider tokens"). The first is
 * this isolate's cache; the second, when the context carries `tokens`, is the fleet's token object
 * for the connection credential (./shared-tokens.ts), so a burst of runs landing on many isolates
 * buys one token per lifetime, not one per isolate. Both levels are keyed by a SHA-256 fingerprint
 * of (token endpoint, client id, secret, and what else the exchange asks for: Auth0's `audience`),
 * so a rotated secret never reuses a token bought with the old one, and two connections that
 * differ only in audience never lend each other a token the API refuses.
 *
 * A token is reused until shortly before `expires_in`; a 401 from the API drops it from both levels
 * and the call is made once more with a fresh token (the provider may revoke or expire it earlier
 * than it said). Every token is registered as a secret before it is used.
 *
 * Only settled values are cached here, never in-flight promises: workerd cancels continuations of a
 * promise that belongs to another request's context. Single flight is the token object's job.
 */

import type { Clock } from "../../../shared/clock";
import { factsOf } from "../../../shared/errors";
import { type StoredToken, sha256Hex } from "../../../shared/rpc/token-broker";
import type { SecretRegistry } from "../../../shared/secrets";
import { providerStatus } from "./provider-error";
import { fleetToken, type HeldToken, reportRejected, type SharedTokens } from "./shared-tokens";

export interface AccessToken {
  accessToken: string;
  expiresInSeconds: number;
}

export interface TokenSource {
  /** e.g. https://acme.us.auth0.com/oauth/token */
  endpoint: string;
  clientId: string;
  clientSecret: string;
  /**
   * Whatever else the exchange sends that changes the token (Auth0's `audience`, a `scope`): part
   * of the cache key, so a token bought for one is never used for another.
   */
  requested?: Readonly<Record<string, string>>;
  /** Buys a fresh token (a providerJson call against `endpoint`). */
  fetchToken(): Promise<AccessToken>;
  /**
   * Whether `call`'s failure is the provider refusing the token itself, so that nothing was done
   * (default: a 401). AWS never answers 401: its adapters name their own codes (../aws/credentials.ts).
   */
  rejected?(err: unknown): boolean;
}

export interface TokenContext {
  clock: Clock;
  secrets: SecretRegistry;
  /** The fleet's token objects for this connection; absent: this isolate's cache only. */
  tokens?: SharedTokens;
  /**
   * false: no first level, as if every call ran on a new isolate; an IsolateTokenCache: that one
   * instead of this isolate's, as if the runs using it ran on an isolate of their own (tests, the bench).
   */
  isolateCache?: boolean | IsolateTokenCache;
  /**
   * Under a lease, its deadline (on `clock`): a wait in the token object for another isolate's
   * exchange ends there, not only at the claim's expiry (docs/design.md, "Provider tokens").
   */
  deadline?: () => number;
}

/** Refresh this long before expiry, at most a tenth of the lifetime. */
const REFRESH_MARGIN_MS = 60_000;

/** The first level: settled tokens by credential fingerprint. */
export class IsolateTokenCache {
  readonly #tokens = new Map<string, HeldToken>();

  get(key: string): HeldToken | undefined {
    return this.#tokens.get(key);
  }

  set(key: string, held: HeldToken): void {
    this.#tokens.set(key, held);
  }

  delete(key: string): void {
    this.#tokens.delete(key);
  }

  clear(): void {
    this.#tokens.clear();
  }
}

/** This isolate's. */
const isolate = new IsolateTokenCache();

function firstLevel(ctx: TokenContext): IsolateTokenCache | undefined {
  if (ctx.isolateCache === false) return undefined;
  return ctx.isolateCache instanceof IsolateTokenCache ? ctx.isolateCache : isolate;
}

/** Fingerprints already computed, by credential (an apply asks three times: prepare, read, write). */
const fingerprints = new Map<string, string>();
const MAX_FINGERPRINTS = 256;

/** Full SHA-256 of the credential: it names the fleet's object, so no prefix of it is enough. */
async function fingerprint(source: TokenSource): Promise<string> {
  const requested = Object.entries(source.requested ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  // Without `requested` the key is what it always was: tokens already cached stay found.
  const credential = `${source.endpoint}\n${source.clientId}\n${source.clientSecret}${
    requested.length > 0 ? `\n${JSON.stringify(requested)}` : ""
  }`;
  const known = fingerprints.get(credential);
  if (known) return known;
  const computed = await sha256Hex(credential);
  if (fingerprints.size >= MAX_FINGERPRINTS) fingerprints.delete(fingerprints.keys().next().value as string);
  fingerprints.set(credential, computed);
  return computed;
}

async function exchange(ctx: TokenContext, source: TokenSource): Promise<StoredToken> {
  const { accessToken, expiresInSeconds } = await source.fetchToken();
  ctx.secrets.register(accessToken);
  const lifetimeMs = expiresInSeconds * 1000;
  const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs / 10);
  const now = ctx.clock.now();
  return { token: accessToken, refreshAtMs: now + lifetimeMs - margin, expiresAtMs: now + lifetimeMs };
}

async function currentToken(ctx: TokenContext, source: TokenSource, key: string): Promise<string> {
  const cache = firstLevel(ctx);
  const cached = cache?.get(key);
  if (cached && ctx.clock.now() < cached.refreshAtMs) {
    ctx.secrets.register(cached.token);
    return cached.token;
  }
  const held = ctx.tokens
    ? await fleetToken(
        ctx.tokens.object(key),
        ctx.clock.now(),
        ctx.secrets,
        () => exchange(ctx, source),
        ctx.deadline?.(),
      )
    : await exchange(ctx, source);
  cache?.set(key, { token: held.token, refreshAtMs: held.refreshAtMs });
  return held.token;
}

/** Runs `call` with a bearer token for `source`; on a 401 PROVIDER_ERROR (or what `source.rejected` says), once more with a new one. */
export async function withAccessToken<T>(
  ctx: TokenContext,
  source: TokenSource,
  call: (token: string) => Promise<T>,
): Promise<T> {
  const key = await fingerprint(source);
  const token = await currentToken(ctx, source, key);
  try {
    return await call(token);
  } catch (err) {
    if (!(source.rejected ? source.rejected(err) : providerStatus(err) === 401)) throw err;
    const cache = firstLevel(ctx);
    if (cache?.get(key)?.token === token) cache.delete(key);
    if (ctx.tokens) await reportRejected(ctx.tokens.object(key), token);
    // A 401 after an attempt that may have landed is an unknown outcome: sending the write again
    // with a new token could meet its own landing and read it as someone else's (a precondition).
    // The token is still forgotten, so the next call gets a new one.
    if (mayHaveLanded(err)) throw err;
    return call(await currentToken(ctx, source, key));
  }
}

function mayHaveLanded(err: unknown): boolean {
  return factsOf(err).outcome === "unknown";
}

/** Forgets every token this isolate cached (tests; a worker never needs it). The fleet's stay. */
export function clearTokenCache(): void {
  isolate.clear();
}
