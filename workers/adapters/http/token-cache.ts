/**
 * Per-isolate cache of OAuth client-credentials tokens, keyed by (token endpoint, client id) and
 * a fingerprint of the secret, so a rotated secret never reuses a token bought with the old one.
 * A token is reused until shortly before `expires_in`; a 401 from the API drops it and the call is
 * made once more with a fresh token (the provider may revoke or expire it earlier than it said).
 *
 * Only settled values are cached, never in-flight promises: workerd cancels continuations of a
 * promise that belongs to another request's context.
 */
import type { Clock } from "../../../shared/clock";
import type { SecretRegistry } from "../../../shared/secrets";
import { providerStatus } from "./provider-error";

export interface AccessToken {
  accessToken: string;
  expiresInSeconds: number;
}

export interface TokenSource {
  /** e.g. https://acme.us.auth0.com/oauth/token */
  endpoint: string;
  clientId: string;
  clientSecret: string;
  /** Buys a fresh token (a providerJson call against `endpoint`). */
  fetchToken(): Promise<AccessToken>;
}

interface Cached {
  token: string;
  refreshAtMs: number;
}

/** Refresh this long before expiry, at most a tenth of the lifetime. */
const REFRESH_MARGIN_MS = 60_000;

const cache = new Map<string, Cached>();

async function cacheKey(source: TokenSource): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(source.clientSecret));
  const fingerprint = [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0"));
  return `${source.endpoint}\n${source.clientId}\n${fingerprint.join("")}`;
}

async function freshToken(ctx: TokenContext, source: TokenSource, key: string): Promise<string> {
  const { accessToken, expiresInSeconds } = await source.fetchToken();
  ctx.secrets.register(accessToken);
  const lifetimeMs = expiresInSeconds * 1000;
  const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs / 10);
  cache.set(key, { token: accessToken, refreshAtMs: ctx.clock.now() + lifetimeMs - margin });
  return accessToken;
}

export interface TokenContext {
  clock: Clock;
  secrets: SecretRegistry;
}

/** Runs `call` with a bearer token for `source`; on a 401 PROVIDER_ERROR, once more with a new one. */
export async function withAccessToken<T>(
  ctx: TokenContext,
  source: TokenSource,
  call: (token: string) => Promise<T>,
): Promise<T> {
  const key = await cacheKey(source);
  const cached = cache.get(key);
  let token: string;
  if (cached && ctx.clock.now() < cached.refreshAtMs) {
    token = cached.token;
    ctx.secrets.register(token);
  } else {
    token = await freshToken(ctx, source, key);
  }
  try {
    return await call(token);
  } catch (err) {
    if (providerStatus(err) !== 401) throw err;
    if (cache.get(key)?.token === token) cache.delete(key);
    return call(await freshToken(ctx, source, key));
  }
}

/** Forgets every cached token (tests; a worker never needs it). */
export function clearTokenCache(): void {
  cache.clear();
}
