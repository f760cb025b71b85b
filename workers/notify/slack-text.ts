/**
 * The text Slack shows for a notification (docs/operations.md, "Notifications"): its kind and
 * summary, its facts with every time as people read it (`2026-12-07 18:40 UTC (4 min ago)`), when
 * it was found, and the dashboard page to open. Slack reads `<…>` as links and mentions and `&`
 * as an entity (api.slack.com, "Formatting text for app surfaces": escaping), so every piece of
 * text is escaped: a lock key, an identity or a provider's entry can never become a link or a
 * `<!channel>`. Pure: `now` and the link are passed in.
 */
import type { Notification } from "./notification";

const escapeSlack = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A fact that is a time: `expiredAt`, `seenAt`, `until`, `since` holding epoch ms. */
function isTime(key: string, value: unknown): value is number {
  return typeof value === "number" && value > 1e12 && /(At|Until|^until|^since)$/.test(key);
}

/** "30 s", "4 min", "2 h 05 min", "3 days". */
function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h} h` : `${h} h ${String(m % 60).padStart(2, "0")} min`;
  return `${Math.round(h / 24)} days`;
}

/** `2026-12-07 18:40 UTC (4 min ago)`, `… (in 4 min)`: UTC to the minute, and its distance from now. */
export function humanTime(at: number, now: number): string {
  const utc = `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const d = at - now;
  if (Math.abs(d) < 1000) return `${utc} (now)`;
  return d > 0 ? `${utc} (in ${span(d)})` : `${utc} (${span(-d)} ago)`;
}

export function slackText(n: Notification, now: number, link: string | null): string {
  const facts = Object.entries(n.subject)
    .map(([k, v]) => `${k}: ${isTime(k, v) ? humanTime(v, now) : String(v)}`)
    .join(" · ");
  const found = `found ${humanTime(n.at, now)}`;
  // Only the link's own characters are Slack syntax; it is built from the service's URL and a path.
  const open = link === null ? "" : ` · <${link.replaceAll("&", "&amp;")}|open on the dashboard>`;
  return [
    `[sponson] ${escapeSlack(n.kind)}: ${escapeSlack(n.summary)}`,
    ...(facts ? [escapeSlack(facts)] : []),
    `${found}${open}`,
  ].join("\n");
}
