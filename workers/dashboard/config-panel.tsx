/**
 * For admins: the configuration report of GET /v1/config/status (workers/config/config-report.ts)
 * — which vars are set and valid, which connections lack a Worker secret, which environments opt
 * out of a URL shape rule, every problem and warning with its path. Names only; the report holds no value.
 */
import type { ConfigReport } from "../config/config-report";

export function ConfigPanel({ report }: { report: ConfigReport }) {
  const missing = report.connections.filter((c) => c.missingSecrets.length > 0);
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
        </summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Connection</th>
                <th>Type</th>
                <th>Environments</th>
                <th>Missing secrets</th>
              </tr>
            </thead>
            <tbody>
              {report.connections.map((c) => (
                <tr data-connection={c.name}>
                  <td class="mono">{c.name}</td>
                  <td>{c.type}</td>
                  <td>{c.environments.join(", ")}</td>
                  <td class="mono">{c.missingSecrets.join(", ") || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}
