/**
 * The text Slack shows for a notification (docs/operations.md, "Notifications"): its kind and
 * summary, its facts with every time as people read it (`2026-12-07 18:40 UTC (4 min ago)`), when
 * it was found, and the dashboard page to open. Pure: `now` and the link are passed in.
 *
 * Keys, identities and provider entries reach this text from records anyone with write access to a
 * provider list can shape, so none of it may become Slack markup (api.slack.com, "Formatting text
 * for app surfaces"): `&`, `<` and `>` are escaped, so `<!channel>` or `<https://evil|log in>`
 * stays text; and every key or name (a string fact, and where the summary names one) is a code
 * span, so Slack neither links a URL in it nor formats it. A code span has no escape for a
 * backtick, so a backtick from a record shows as `ˋ` (U+02CB) — the exact key is on the dashboard
 * page the notice links — and a line break as a space, so a value keeps to its line.
 */
import type { Notification } from "./notification";

/** Text from a record, shown as written: no markup, no backtick, no line break. */
function plain(text: string): string {
  return text
    .replace(/[\p{Cc}\u2028\u2029]/gu, " ")
    .replaceAll("`", "\u02cb")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}

const code = (text: string) => `\`${plain(text)}\``;

const isWordChar = (ch: string | undefined) => ch !== undefined && /[A-Za-z0-9]/.test(ch);

/**
 * The summary, every key or name of the subject it contains as a code span (longest first, whole
 * words only). `kind` is the audit record's kind, a word of the summary, not a name.
 */
function summaryText(summary: string, subject: Notification["subject"]): string {
  const names = [
    ...new Set(
      Object.entries(subject)
        .filter(([k, v]) => k !== "kind" && typeof v === "string" && v.length > 1)
        .map(([, v]) => v as string),
    ),
  ].sort((a, b) => b.length - a.length);
  let out = "";
  let from = 0;
  for (let i = 0; i < summary.length; ) {
    const name = names.find(
      (n) => summary.startsWith(n, i) && !isWordChar(summary[i - 1]) && !isWordChar(summary[i + n.length]),
    );
    if (name === undefined) {
      i += 1;
      continue;
    }
    out += plain(summary.slice(from, i)) + code(name);
    i += name.length;
    from = i;
  }
  return out + plain(summary.slice(from));
}

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
    .map(
      ([k, v]) =>
        `${plain(k)}: ${isTime(k, v) ? humanTime(v, now) : typeof v === "string" ? code(v) : String(v)}`,
    )
    .join(" · ");
  const found = `found ${humanTime(n.at, now)}`;
  // Only the link's own characters are Slack syntax; it is built from the service's URL and a path,
  // where the URL parser leaves `|` (which would end the link's URL) as it is.
  const url = link?.replaceAll("&", "&amp;").replaceAll("|", "%7C");
  const open = url === undefined ? "" : ` · <${url}|open on the dashboard>`;
  return [
    `[sponson] ${plain(n.kind)}: ${summaryText(n.summary, n.subject)}`,
    ...(facts ? [facts] : []),
    `${found}${open}`,
  ].join("\n");
}
