/**
 * API tokens of the emulated Cloudflare v4 API, one store for every product it answers (R2 bucket
 * CORS, Turnstile widgets), as one token may be granted several. Storage key: `token:<api token>`.
 *
 * What Cloudflare answers a token on account-scoped endpoints [C: answers recorded by API clients;
 * the exact code varies by endpoint (some say 9109 "Invalid access token") [U] for these two]:
 * an unknown token is 401 code 10000 "Authentication error"; a valid token without access to the
 * account, without the product's permission, or read-only on a write is 403 code 10000.
 */
import type { EmulatorState } from "../emulator";
import { cfError } from "./responses";

export type CloudflareProduct = "r2" | "turnstile";

export interface CloudflareToken {
  accounts: string[];
  readOnly?: boolean;
  /** The products the token is granted; absent: every one (R2 write, Turnstile Sites Write). */
  products?: CloudflareProduct[];
}

export const tokenKey = (token: string) => `token:${token}`;

/** Null when the request's bearer token may do this; otherwise Cloudflare's refusal. */
export function refusedToken(
  request: Request,
  state: EmulatorState,
  account: string,
  product: CloudflareProduct,
): Response | null {
  const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/i)?.[1];
  const token = bearer ? state.get<CloudflareToken>(tokenKey(bearer)) : undefined;
  if (!token) return cfError(401, 10000, "Authentication error");
  const granted = token.products === undefined || token.products.includes(product);
  if (!token.accounts.includes(account) || !granted || (token.readOnly && request.method !== "GET")) {
    return cfError(403, 10000, "Authentication error");
  }
  return null;
}
