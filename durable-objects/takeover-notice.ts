/**
 * Tells operators that a lock was taken over after its holder's lease expired (docs/design.md,
 * "Lease protocol"; the kind `lock-taken-over` in docs/operations.md). Sent after the takeover is written, in the background: a
 * failed send is logged by notify() and never touches the grant.
 */
import type { Env } from "../shared/env";
import type { LeaseGrant } from "../shared/schemas/lock";
import { notify } from "../workers/notify/notify";
import type { ExpiredLease } from "./expired-lease";

export function notifyTakeover(
  env: Env,
  key: string,
  previous: ExpiredLease,
  grant: LeaseGrant,
): Promise<unknown> {
  return notify(env, {
    // One per grant: a receiver drops a repeat delivery of the same takeover.
    id: `lock-taken-over:${key}:${grant.token}`,
    kind: "lock-taken-over",
    at: Date.now(),
    summary: `${key} was taken over by ${grant.holder} after the lease of ${previous.holder} expired`,
    subject: {
      lock: key,
      previousHolder: previous.holder,
      previousToken: previous.token,
      expiredAt: previous.expiresAt,
      holder: grant.holder,
      token: grant.token,
    },
  });
}
