/** GET /dashboard: the header (who is signed in, feed status, sign-out) around the live sections. */
import type { AuditEntry } from "../audit/audit-trail";
import type { Role } from "../auth/caller";
import type { ConfigReport } from "../config/config-report";
import { AuditTrail } from "./audit-trail";
import { ConfigPanel } from "./config-panel";
import { FilterBar, type FilterBarProps } from "./filter-bar";
import { Layout } from "./layout";
import { type LiveProps, LiveSections } from "./live-sections";

export interface DashboardProps extends LiveProps {
  nonce: string;
  subject: string;
  role: Role;
  /** The session's CSRF token (sign-out form). */
  csrf: string;
  /** A fixed-format notice after an action, e.g. a force-release. */
  notice?: { kind: "ok" | "bad"; text: string };
  /** The filter form's choices. */
  choices: Omit<FilterBarProps, "filter">;
  /** Admins only: the configuration report. */
  config?: ConfigReport;
  /** The newest audit records; only an admin's page has them. */
  audit?: AuditEntry[];
}

export function DashboardPage(props: DashboardProps) {
  return (
    <Layout title="Locks · Sponson Edge" nonce={props.nonce} script>
      <header class="top">
        <h1>Sponson Edge</h1>
        <span id="feed-status" data-state="connecting" role="status">
          connecting
        </span>
        <span class="who">
          {props.subject} · {props.role}
        </span>
        <form method="post" action="/dashboard/sign-out">
          <input type="hidden" name="csrf" value={props.csrf} />
          <button type="submit">Sign out</button>
        </form>
      </header>
      <main>
        {props.notice ? (
          <p class={`notice ${props.notice.kind}`} role="status">
            {props.notice.text}
          </p>
        ) : null}
        {props.config ? <ConfigPanel report={props.config} /> : null}
        <FilterBar filter={props.snapshot.filter} {...props.choices} />
        <div id="live">
          <LiveSections snapshot={props.snapshot} releaseCsrf={props.releaseCsrf} />
        </div>
        {props.audit ? <AuditTrail entries={props.audit} /> : null}
      </main>
    </Layout>
  );
}
