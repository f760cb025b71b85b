/**
 * One notification as the requests each configured target receives (docs/operations.md,
 * "Notifications"): Slack's incoming-webhook `{ text }`, and the generic webhook's JSON body signed
 * with HMAC-SHA256 in `X-Sponson-Signature-256: sha256=<hex>`, as GitHub signs its own deliveries.
 */
import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import { dashboardLink } from "./dashboard-link";
import type { Notification } from "./notification";
import type { NotifyConfig } from "./notify-config";
import { slackText } from "./slack-text";

export const SIGNATURE_HEADER = "x-sponson-signature-256";

/** `none`: nothing is configured; only a sender that records (the dev sink) receives it. */
export type TargetName = "slack" | "webhook" | "none";

export interface OutboundNotification {
  target: TargetName;
  url: string;
  init: { method: "POST"; headers: Record<string, string>; body: string };
}

/**
 * Sends one request. Production: the network. The dev entry records it at its local sink instead
 * (dev/entry/notification-sink.ts), so `npm start` never posts anywhere.
 */
export type NotificationSender = ((env: Env, outbound: OutboundNotification) => Promise<Response>) & {
  /** It records rather than sends: with no target configured it still gets the notification. */
  readonly records?: true;
};

export const networkSender: NotificationSender = (_env, { url, init }) => fetch(url, init);

function secretOf(env: Env, name: string): string {
  const value = env[name];
  if (typeof value !== "string" || value === "") {
    throw new SponsonError("INTERNAL", `SPONSON_NOTIFY names the secret ${name}, which is not set`);
  }
  return value;
}

export async function signBody(secret: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)));
  return `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** SPONSON_PUBLIC_URL, where the dashboard's links point; null when unset. */
function publicUrlOf(env: Env): string | null {
  const value = (env as { SPONSON_PUBLIC_URL?: unknown }).SPONSON_PUBLIC_URL;
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

const json = { "content-type": "application/json" };

/** What a recording sender gets when no target is configured. */
export function unconfiguredRequest(n: Notification): OutboundNotification {
  return { target: "none", url: "", init: { method: "POST", headers: json, body: JSON.stringify(n) } };
}

/** The requests for `n`; `now` is when it is delivered, which Slack's "4 min ago" counts from. */
export async function outboundRequests(env: Env, config: NotifyConfig, n: Notification, now = Date.now()) {
  const out: OutboundNotification[] = [];
  if (config.slack) {
    const body = JSON.stringify({ text: slackText(n, now, await dashboardLink(publicUrlOf(env), n)) });
    out.push({
      target: "slack",
      url: secretOf(env, config.slack.urlSecret),
      init: { method: "POST", headers: json, body },
    });
  }
  if (config.webhook) {
    const body = JSON.stringify(n);
    const signature = await signBody(secretOf(env, config.webhook.secret), body);
    out.push({
      target: "webhook",
      url: config.webhook.url,
      init: { method: "POST", headers: { ...json, [SIGNATURE_HEADER]: signature }, body },
    });
  }
  return out;
}
