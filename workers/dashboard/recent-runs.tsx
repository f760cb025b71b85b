/** Recent runs across scopes, newest first, with status and the error that failed them. */
import { formatDuration, formatUtc } from "./format";
import type { RunView } from "./snapshot";

export function RecentRuns({ runs }: { runs: RunView[] }) {
  return (
    <section id="runs" aria-labelledby="runs-title">
      <h2 id="runs-title">
        Recent runs <span class="count">{runs.length}</span>
      </h2>
      {runs.length === 0 ? (
        <p class="empty">No runs recorded yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Finished</th>
                <th>Scope</th>
                <th>Action</th>
                <th>Status</th>
                <th>Took</th>
                <th>Run</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr data-run={r.id}>
                  <td>{formatUtc(r.finishedAt)}</td>
                  <td class="mono">
                    {r.repository ? <span class="repository">{r.repository.name} </span> : null}
                    {r.environment}/{r.scope}
                  </td>
                  <td>{r.action}</td>
                  <td>
                    <span class={`badge ${r.status}`}>{r.status}</span>
                  </td>
                  <td>{formatDuration(r.finishedAt - r.startedAt)}</td>
                  <td class="mono">{r.id}</td>
                  <td>
                    {r.error ? (
                      <>
                        <code>{r.error.code}</code> {r.error.message}
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
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
