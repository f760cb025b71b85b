/**
 * Service tokens have a maximum lifetime per role (docs/security.md, "Service tokens"): a leaked
 * token is useful for a bounded time even when nobody revokes it. The bound holds from the moment the
 * service verifies the token, never from the `iat` the token claims alone: a token whose `iat` lies
 * ahead of now (beyond the clock skew) is refused, so `iat = exp − 60` on a ten-year token proves
 * nothing. Pure: the verified `iat` and `exp`, the role, the maxima and `now` in; a refusal naming
 * the limit out.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import type { Role } from "./caller";

const DAY_SECONDS = 24 * 60 * 60;

/** SERVICE_TOKEN_MAX_LIFETIME_SECONDS's defaults: admin one day, ci and viewer ninety. */
export const DEFAULT_MAX_LIFETIME_SECONDS: Readonly<Record<Role, number>> = {
  admin: DAY_SECONDS,
  ci: 90 * DAY_SECONDS,
  viewer: 90 * DAY_SECONDS,
};

export const maxLifetimeSchema = z.strictObject({
  admin: z.number().int().positive().optional(),
  ci: z.number().int().positive().optional(),
  viewer: z.number().int().positive().optional(),
});

/** A token's times and the service's clock, all in seconds since the epoch. */
export interface TokenTimes {
  issuedAt: number;
  expiresAt: number;
  now: number;
  /** Allowed clock skew between the minter and this Worker. */
  skew: number;
}

export function assertLifetime(role: Role, times: TokenTimes, maxima: Readonly<Record<Role, number>>): void {
  const { issuedAt, expiresAt, now, skew } = times;
  const max = maxima[role];
  if (issuedAt > now + skew) {
    throw new SponsonError(
      "UNAUTHENTICATED",
      "the token's iat lies ahead of the service's clock; mint it again with the current time",
      { reason: "lifetime" },
    );
  }
  // Both bounds: what the token claims, and what is left of it from now.
  if (expiresAt - issuedAt > max || expiresAt - now > max + skew) {
    // The same shape as every other token refusal (verify-token.ts): a closed reason, nothing echoed.
    throw new SponsonError(
      "UNAUTHENTICATED",
      `a ${role} token may live at most ${max} seconds (SERVICE_TOKEN_MAX_LIFETIME_SECONDS); mint a shorter one`,
      { reason: "lifetime" },
    );
  }
}
