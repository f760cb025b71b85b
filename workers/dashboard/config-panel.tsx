/**
 * For admins: the configuration report of GET /v1/config/status (workers/config/config-report.ts)
 * — which vars are set and valid, which connections lack a Worker secret or name no repository
 * while several are configured, which environments opt out of a URL shape rule, every problem and
 * warning with its path. Names only; the report holds no value.
 */
import type { ConfigReport, ConnectionStatus } from "../config/config-report";
import { PlatformsTable } from "./platforms-table";

/** Who may write through a connection, as its row says it. */
function writersText(c: ConnectionStatus, unbound: boolean): string {
  if (unbound) return "none named: takes no writes";
  if (c.repositories.length === 0) return "any (one repository)";
  return c.repositories[0] === "*" ? "every repository (shared)" : c.repositories.join(", ");
}

export function ConfigPanel({ report }: { report: ConfigReport }) {
  const missing = report.connections.filter((c) => c.missingSecrets.length > 0);
  // Objects belong to repositories (docs/design.md): with several, a connection naming none writes nothing.
  const unbound = new Set(
    report.problems
      .map((p) => /^SPONSON_CONNECTIONS\.(.+)\.repositories$/.exec(p.path)?.[1])
      .filter((name): name is string => name !== undefined),
  );
  return (
    <section id="config" aria-labelledby="config-title" data-valid={String(report.valid)}>
      <h2 id="config-title">
        Configuration{" "}
        <span class={`badge ${report.valid ? "succeeded" : "failed"}`}>
          {report.valid
            ? "valid"
            : `${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}`}
        </span>
      </h2>
      {report.problems.length > 0 ? (
        <ul class="problems">
          {report.problems.map((p) => (
            <li>
              <code>{p.path}</code> {p.message}
            </li>
          ))}
        </ul>
      ) : null}
      {report.warnings.length > 0 ? (
        <ul class="problems">
          {report.warnings.map((w) => (
            <li data-config-warning={w.path}>
              warning: <code>{w.path}</code> {w.message}
            </li>
          ))}
        </ul>
      ) : null}
      {report.urlCheckOptOuts.length > 0 ? (
        <ul class="problems">
          {report.urlCheckOptOuts.map((o) => (
            <li data-url-check-opt-out={o.environment}>
              <code>{o.environment}</code> opts out of the URL shape check: {o.rules.join(", ")}
            </li>
          ))}
        </ul>
      ) : null}
      <details>
        <summary>
          {report.vars.filter((v) => v.set).length} vars set · {report.connections.length} connections
          {missing.length > 0 ? ` · ${missing.length} missing a secret` : ""}
          {unbound.size > 0 ? ` · ${unbound.size} bound to no repository` : ""}
          {report.platforms.length > 0 ? ` · ${report.platforms.length} platform connections` : ""}
        </summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Connection</th>
                <th>Type</th>
                <th>Environments</th>
                <th>Repositories</th>
                <th>Missing secrets</th>
              </tr>
            </thead>
            <tbody>
              {report.connections.map((c) => (
                <tr data-connection={c.name} {...(unbound.has(c.name) ? { "data-unbound": "true" } : {})}>
                  <td class="mono">{c.name}</td>
                  <td>{c.type}</td>
                  <td>{c.environments.join(", ")}</td>
                  <td>
                    {unbound.has(c.name) ? (
                      <span class="badge failed">{writersText(c, true)}</span>
                    ) : (
                      writersText(c, false)
                    )}
                  </td>
                  <td class="mono">{c.missingSecrets.join(", ") || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <PlatformsTable platforms={report.platforms} />
      </details>
    </section>
  );
}
