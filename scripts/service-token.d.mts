import type { JWK } from "jose";

export declare function currentServiceKey(secretValue: string): Promise<{ kid: string; jwk: JWK }>;
export declare function signServiceToken(
  secretValue: string,
  claims: { role: string; scopes?: string[]; repository?: string; sub: string; ttl: number },
): Promise<{ token: string; jti: string; kid: string }>;
