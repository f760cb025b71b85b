/** The audit trail on the dashboard (admins only, like GET /v1/audit): the newest force-releases, orphan removals and holds. */
import type { AuditEntry } from "../audit/audit-trail";
import { formatUtc } from "./format";

export const AUDIT_SHOWN = 20;

function what(entry: AuditEntry): string {
  if (entry.kind === "force-release") {
    // No holder recorded (an intent, a failed or unknown outcome): say nothing of one.
    if (entry.holder === undefined) return entry.key;
    return entry.holder === null
      ? `${entry.key} (was not held)`
      : `${entry.key}: ${entry.holder}, token ${entry.token}`;
  }
  if (entry.kind === "hold") {
    const until = entry.hold ? ` until ${formatUtc(entry.hold.until)}` : " (none was in force)";
    return `${entry.key}: hold ${entry.action === "set" ? "set" : entry.action === "lift" ? "lifted" : "expired"}${until}`;
  }
  if (entry.kind === "token-mint") {
    const bound = entry.repository === undefined ? "" : ` for ${entry.repository}`;
    return `${entry.role} token ${entry.jti} for ${entry.subject}${bound}, until ${formatUtc(entry.expiresAt * 1000)}`;
  }
  if (entry.kind === "token-revocation") return `token ${entry.jti}`;
  if (entry.kind === "webhook-refused")
    return `delivery ${entry.delivery} for ${entry.repository.name} ${entry.scope} (${entry.rule})`;
  if (entry.kind === "destroy-resend") {
    return `${entry.scope}: destroys re-sent (${entry.environments.join(", ")}), attempt ${entry.attempt}`;
  }
  if (entry.kind === "eviction")
    return `${entry.environment}/${entry.scope}: ${entry.keys.length} entries evicted from ${entry.object} (${entry.reason})`;
  if (entry.kind === "dead-letter-set-aside") {
    const scope = entry.scope === undefined ? entry.key : `${entry.environment}/${entry.scope}`;
    return `${scope}: parked destroy set aside (${entry.reason}: ${entry.detail})`;
  }
  if (entry.kind === "platform-event") {
    const what =
      entry.deployment === null ? entry.eventId : `${entry.platform} deployment ${entry.deployment}`;
    return `${what} of ${entry.connection}${entry.scope === null ? "" : ` for ${entry.scope}`} (${entry.rule})`;
  }
  if (entry.kind === "adoption") {
    const changed = entry.entries === undefined ? "" : `: ${entry.entries.length} entries adopted or removed`;
    return `${entry.op} on ${entry.parent} into ${entry.environment}${changed}`;
  }
  return `${entry.key} on ${entry.parent}${entry.outcome === undefined ? "" : ` (${entry.outcome})`}`;
}

/**
 * A force-release's or orphan removal's status (docs/design.md, "Audit before acting"): an intent
 * never completed may have acted, so it says so rather than looking like nothing happened.
 */
function action(entry: AuditEntry): string {
  if (entry.kind !== "force-release" && entry.kind !== "orphan-removal" && entry.kind !== "adoption")
    return entry.kind;
  if (entry.status === "done") return entry.kind;
  if (entry.status === "started") return `${entry.kind}: started, outcome not recorded`;
  const code = entry.errorCode === undefined ? "" : ` (${entry.errorCode})`;
  return `${entry.kind}: ${entry.status}${code}`;
}

/** Who acted: a refused webhook was GitHub's delivery (or a forgery signed with its secret). */
function by(entry: AuditEntry): string {
  if (entry.kind === "webhook-refused") return "(webhook)";
  if (entry.kind === "platform-event") return `(${entry.platform})`;
  return entry.actor ?? "(expiry)";
}

export function AuditTrail({ entries }: { entries: AuditEntry[] }) {
  return (
    <section id="audit" aria-labelledby="audit-title">
      <h2 id="audit-title">
        Audit trail <span class="count">{entries.length}</span>
      </h2>
      {entries.length === 0 ? (
        <p class="empty">No force-release, orphan removal or hold recorded.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th>Action</th>
                <th>By</th>
                <th>What</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr>
                  <td>{formatUtc(e.at)}</td>
                  <td>{action(e)}</td>
                  <td>{by(e)}</td>
                  <td class="mono">{what(e)}</td>
                  <td>
                    {e.kind === "webhook-refused"
                      ? "refused"
                      : e.kind === "adoption"
                        ? ""
                        : e.kind === "platform-event"
                          ? `${e.outcome}: ${e.reason}`
                          : (e.reason ?? "")}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
