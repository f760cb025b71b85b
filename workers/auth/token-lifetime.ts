/**
 * Service tokens have a maximum lifetime per role (docs/security.md, "Service tokens"): a leaked
 * token is useful for a bounded time even when nobody revokes it. Pure: the verified `iat` and `exp`,
 * the role and the configured maxima in; a refusal naming the limit out.
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

export function assertLifetime(
  role: Role,
  issuedAt: number,
  expiresAt: number,
  maxima: Readonly<Record<Role, number>>,
): void {
  const max = maxima[role];
  if (expiresAt - issuedAt > max) {
    // The same shape as every other token refusal (verify-token.ts): a closed reason, nothing echoed.
    throw new SponsonError(
      "UNAUTHENTICATED",
      `a ${role} token may live at most ${max} seconds (SERVICE_TOKEN_MAX_LIFETIME_SECONDS); mint a shorter one`,
      { reason: "lifetime" },
    );
  }
}
