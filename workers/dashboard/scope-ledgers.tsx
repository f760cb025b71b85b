/**
 * Scopes and their ledgers: each scope's state (open or closed, revision, last pull request event),
 * which URL lives in which provider object, added by which run.
 */
import { formatUtc } from "./format";
import { ScopeStateBadge } from "./scope-state-badge";
import type { ScopeView } from "./snapshot";

export function ScopeLedgers({ scopes, total }: { scopes: ScopeView[]; total: number }) {
  return (
    <section id="scopes" aria-labelledby="scopes-title">
      <h2 id="scopes-title">
        Scopes and ledgers{" "}
        <span class="count">
          {total > scopes.length ? `${scopes.length} newest of ${total}` : scopes.length}
        </span>
      </h2>
      {scopes.length === 0 ? <p class="empty">No scope has a receipt yet.</p> : null}
      {scopes.map((s) => (
        <details
          class="scope"
          open={s.ledger.length > 0 && scopes.length <= 6}
          data-scope={`${s.environment}/${s.scope}`}
          data-repository={s.repository.name}
        >
          <summary>
            <span class="mono repository">{s.repository.name}</span>{" "}
            <strong class="mono">
              {s.environment}/{s.scope}
            </strong>{" "}
            <ScopeStateBadge state={s.state} />{" "}
            <span class="muted">
              · {s.ledger.length} {s.ledger.length === 1 ? "entry" : "entries"} · updated{" "}
              {formatUtc(s.updatedAt)}
            </span>
          </summary>
          {s.problem ? <p class="notice bad">{s.problem}</p> : null}
          {s.ledger.length === 0 ? null : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Item</th>
                    <th>Provider object</th>
                    <th>Held as</th>
                    <th>Line · op</th>
                    <th>Added by run</th>
                    <th>Added</th>
                  </tr>
                </thead>
                <tbody>
                  {s.ledger.map((e) => (
                    <tr>
                      <td class="mono">{e.key}</td>
                      <td class="mono">{e.parent ?? <span class="muted">own object</span>}</td>
                      <td>{e.holding}</td>
                      <td>
                        {e.line} · <span class="mono">{e.op}</span>
                      </td>
                      <td class="mono">{e.runId}</td>
                      <td>{formatUtc(e.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </details>
      ))}
    </section>
  );
}
