/**
 * SPONSON_NOTIFY (docs/operations.md, "Notifications"): where notifications go and which kinds are
 * sent. Targets come from this configuration only; a notification never names one. The Slack URL
 * is itself a credential (anyone holding it can post), so the configuration names the Worker secret
 * that holds it, like the webhook's signing secret.
 *
 *   { "slack": { "urlSecret": "SLACK_WEBHOOK_URL" },
 *     "webhook": { "url": "https://ops.example.com/sponson", "secret": "NOTIFY_WEBHOOK_SECRET" },
 *     "kinds": { "orphan-found": false } }
 */
import { z } from "zod";
import { jsonVar, type Vars } from "../config/config-vars";
import { isReservedSecretName } from "../connections/connection-schema";
import { NOTIFICATION_KINDS, type NotificationKind } from "./notification";

const secretName = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "a Worker secret name, e.g. NOTIFY_WEBHOOK_SECRET")
  .refine((name) => !isReservedSecretName(name), "names one of the service's own secrets or settings");

const httpsUrl = z
  .url({ protocol: /^https$/, hostname: z.regexes.domain })
  .refine((u) => !new URL(u).username && !new URL(u).password, "must not carry credentials");

export const notifyConfigSchema = z.strictObject({
  slack: z.strictObject({ urlSecret: secretName }).optional(),
  webhook: z.strictObject({ url: httpsUrl, secret: secretName }).optional(),
  /** A kind set to false is not sent; every kind is on otherwise, except `audit`, which is sent only when true. */
  kinds: z.partialRecord(z.enum(NOTIFICATION_KINDS), z.boolean()).optional(),
});
export type NotifyConfig = z.infer<typeof notifyConfigSchema>;

/** Unset: no target (notifications are still queued, and logged when delivered nowhere). */
export function notifyConfigFromEnv(env: object): NotifyConfig {
  return jsonVar(env as Vars, "SPONSON_NOTIFY", notifyConfigSchema) ?? {};
}

/**
 * Kinds an operator switches on: `audit` sends one notification per record of the trail, a volume
 * nobody should get by upgrading.
 */
const OPT_IN_KINDS: ReadonlySet<NotificationKind> = new Set(["audit"]);

export function kindEnabled(config: NotifyConfig, kind: NotificationKind): boolean {
  return OPT_IN_KINDS.has(kind) ? config.kinds?.[kind] === true : config.kinds?.[kind] !== false;
}
