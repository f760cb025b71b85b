/**
 * Scopes and their ledgers: each scope's state (open or closed, revision, last pull request event),
 * which URL lives in which provider object, added by which run.
 */
import { formatUtc } from "./format";
import { Pager } from "./pager";
import { ScopeStateBadge } from "./scope-state-badge";
import type { ScopeView } from "./snapshot";
import { isFiltered, type ViewFilter } from "./view-filter";

export interface ScopeLedgersProps {
  scopes: ScopeView[];
  total: number;
  filter: ViewFilter;
  pages: number;
}

/** The run's page: the run id, and where its receipt lives. */
export function runHref(
  id: string,
  at: { repository?: { name: string } | undefined; environment: string; scope: string },
): string {
  const q = new URLSearchParams({ environment: at.environment, scope: at.scope });
  if (at.repository) q.set("repository", at.repository.name);
  return `/dashboard/runs/${encodeURIComponent(id)}?${q}`;
}

export function ScopeLedgers({ scopes, total, filter, pages }: ScopeLedgersProps) {
  return (
    <section id="scopes" aria-labelledby="scopes-title">
      <h2 id="scopes-title">
        Scopes and ledgers{" "}
        <span class="count">{total > scopes.length ? `${scopes.length} of ${total}` : scopes.length}</span>
      </h2>
      {scopes.length === 0 ? (
        <p class="empty">
          {isFiltered(filter) ? "No scope matches this filter." : "No scope has a receipt yet."}
        </p>
      ) : null}
      <Pager filter={filter} pages={pages} />
      {scopes.map((s) => (
        <details
          class="scope"
          // A stable id: the refresh's morph (client-script.ts) matches each ledger to itself, so a
          // new scope listed above it never hands it another ledger's open state.
          id={`ledger-${s.repository.id}-${s.environment}-${s.scope}`}
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
                      <td class="mono">
                        {e.parent === null ? (
                          <span class="muted">own object</span>
                        ) : e.parentHash ? (
                          <a class="object" href={`/dashboard/objects/${e.parentHash}`}>
                            {e.parent}
                          </a>
                        ) : (
                          e.parent
                        )}
                      </td>
                      <td>{e.holding}</td>
                      <td>
                        {e.line} · <span class="mono">{e.op}</span>
                      </td>
                      <td class="mono">
                        <a href={runHref(e.runId, s)}>{e.runId}</a>
                      </td>
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
