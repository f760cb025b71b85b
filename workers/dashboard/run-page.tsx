/**
 * GET /dashboard/runs/{id}: one run, as the pull-request comment links it — its outcome, where its
 * time went, and the entries it added (with their provider objects), read from its scope's receipt.
 */
import type { Role } from "../auth/caller";
import { formatDuration, formatMs, formatUtc } from "./format";
import { HolderText } from "./holder-text";
import { Layout } from "./layout";
import type { LedgerRow, RunView } from "./snapshot";

export interface RunPageProps {
  nonce: string;
  subject: string;
  role: Role;
  run: RunView;
  /** Ledger entries this run added that the scope still holds. */
  entries: LedgerRow[];
  /** Keys the run created (the receipt's record), even those gone since. */
  created: string[];
}

export function RunPage({ nonce, subject, role, run, entries, created }: RunPageProps) {
  const t = run.timings;
  return (
    <Layout title={`Run ${run.id} · Sponson Edge`} nonce={nonce}>
      <header class="top">
        <h1>
          <a href="/dashboard">Sponson Edge</a> · run
        </h1>
        <span class="who">
          {subject} · {role}
        </span>
      </header>
      <main>
        <section id="run" aria-labelledby="run-title" data-run={run.id} data-status={run.status}>
          <h2 id="run-title">
            <span class="mono">{run.id}</span> <span class={`badge ${run.status}`}>{run.status}</span>
          </h2>
          <dl class="facts">
            <dt>Scope</dt>
            <dd class="mono">
              {run.repository ? `${run.repository.name} ` : ""}
              {run.environment}/{run.scope}
            </dd>
            <dt>Action</dt>
            <dd>{run.action}</dd>
            {run.provenance ? (
              <>
                <dt>From</dt>
                <dd class="provenance">
                  <HolderText
                    run={run.id}
                    by={{
                      run: run.id,
                      repository: run.repository?.name ?? run.provenance.repository,
                      scope: `${run.environment}/${run.scope}`,
                      pullRequest: run.provenance.pullRequest,
                      actor: run.provenance.actor,
                      runUrl: run.provenance.runUrl,
                      declared: run.provenance.declared,
                      ...(run.provenance.platform
                        ? {
                            platform: {
                              kind: run.provenance.platform.kind,
                              deployment: run.provenance.platform.deployment,
                            },
                          }
                        : {}),
                    }}
                  />
                  {run.provenance.sha ? <span class="mono"> · {run.provenance.sha.slice(0, 7)}</span> : null}
                </dd>
              </>
            ) : null}
            <dt>Started</dt>
            <dd>{formatUtc(run.startedAt)}</dd>
            <dt>Took</dt>
            <dd>{formatDuration(run.finishedAt - run.startedAt)}</dd>
            {t ? (
              <>
                <dt>Time</dt>
                <dd>
                  provider {formatMs(t.provider)} · scope lock {formatMs(t.scopeLockWait)} · parent locks{" "}
                  {formatMs(t.parentLockWait)} · storage {formatMs(t.storage)}
                </dd>
              </>
            ) : null}
            {run.combinedBy ? (
              <>
                <dt>Written with</dt>
                <dd class="mono">{run.combinedBy.join(", ")}</dd>
              </>
            ) : null}
            {run.error ? (
              <>
                <dt>Error</dt>
                <dd>
                  <code>{run.error.code}</code> {run.error.message}
                </dd>
              </>
            ) : null}
          </dl>
          <h3>Entries it added</h3>
          {entries.length === 0 ? (
            <p class="empty">
              {created.length === 0
                ? "This run added nothing."
                : "None of them is held by the scope any more."}
            </p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Item</th>
                    <th>Provider object</th>
                    <th>Held as</th>
                    <th>Line · op</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((e) => (
                    <tr data-key={e.key}>
                      <td class="mono">{e.key}</td>
                      <td class="mono">
                        {e.parentHash ? (
                          <a href={`/dashboard/objects/${e.parentHash}`}>{e.parent}</a>
                        ) : (
                          (e.parent ?? "")
                        )}
                      </td>
                      <td>{e.holding}</td>
                      <td>
                        {e.line} · <span class="mono">{e.op}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </main>
    </Layout>
  );
}
