/**
 * Recent runs across scopes, newest first, with status, where their time went, whose write carried
 * their changes (write combining) and the error that failed them.
 */
import { formatDuration, formatMs, formatUtc } from "./format";
import { runHref } from "./scope-ledgers";
import type { RunView } from "./snapshot";

/** The run's total, its main parts underneath, and every part and count in the cell's tooltip. */
function Took({ run }: { run: RunView }) {
  const { timings: t, counts: n } = run;
  if (!t || !n) return <td>{formatDuration(run.finishedAt - run.startedAt)}</td>;
  const detail = [
    `authorization ${formatMs(t.authorization)}`,
    `scope lock ${formatMs(t.scopeLockWait)}`,
    `parent locks ${formatMs(t.parentLockWait)}`,
    `provider ${formatMs(t.provider)}`,
    `storage ${formatMs(t.storage)}`,
    `${n.providerCalls} provider calls, ${n.lockOps} lock operations, ${n.storageReads} storage reads, ${n.storageWrites} storage writes`,
  ].join("\n");
  return (
    <td class="took" title={detail} data-timings={JSON.stringify({ timings: t, counts: n })}>
      {formatMs(t.total)}
      <span class="breakdown muted">
        provider {formatMs(t.provider)} ({n.providerCalls}) · locks{" "}
        {formatMs(t.scopeLockWait + t.parentLockWait)} · storage {formatMs(t.storage)}
      </span>
    </td>
  );
}

/** `filtered`: an empty list is the filter's doing, not an empty service. */
export function RecentRuns({ runs, filtered = false }: { runs: RunView[]; filtered?: boolean }) {
  return (
    <section id="runs" aria-labelledby="runs-title">
      <h2 id="runs-title">
        Recent runs <span class="count">{runs.length}</span>
      </h2>
      {runs.length === 0 ? (
        <p class="empty">{filtered ? "No runs match this filter." : "No runs recorded yet."}</p>
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
                  <Took run={r} />
                  <td class="mono">
                    <a class="run" href={runHref(r.id, r)}>
                      {r.id}
                    </a>
                    {r.combinedBy ? (
                      <span class="combined muted" data-combined-by={r.combinedBy.join(" ")}>
                        {" "}
                        written with {r.combinedBy.join(", ")}
                      </span>
                    ) : null}
                  </td>
                  <td class="error">
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
