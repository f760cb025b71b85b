/**
 * What the service tells an operator (docs/operations.md, "Notifications"): one message per
 * finding, put on the notifications queue and delivered to the configured targets. Built only from
 * names, keys and counts the service already shows its admins: never a secret, a token or a
 * provider's answer.
 */
import { z } from "zod";

/**
 * `list-near-capacity`: the sweep found a list above 80 % of its cap (workers/sweep/near-capacity.ts).
 * `audit`: one record of the audit trail, forwarded by the sweep (workers/audit/audit-forward.ts);
 * the one kind an operator must switch on (notify-config.ts).
 */
export const NOTIFICATION_KINDS = [
  "destroy-dead-lettered",
  "orphan-found",
  "lock-taken-over",
  "scope-lingering",
  "destroy-resends-exhausted",
  "list-near-capacity",
  "audit",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

const fact = z.union([z.string().max(1000), z.number(), z.boolean()]);

export const notificationSchema = z.strictObject({
  /** Stable per finding, so a receiver can drop a repeat (delivery is at least once). */
  id: z.string().min(1).max(300),
  kind: z.enum(NOTIFICATION_KINDS),
  /** When it was found (epoch ms). */
  at: z.number().int().nonnegative(),
  /** One line for a human (Slack shows it). */
  summary: z.string().min(1).max(500),
  /** What it is about: repository id, environment, scope, lock key, parent, … */
  subject: z.record(z.string().max(64), fact),
  /** `audit`: the record itself, as `GET /v1/audit` answers it (a SIEM takes it whole). */
  record: z.record(z.string(), z.unknown()).optional(),
});
export type Notification = z.infer<typeof notificationSchema>;
