/**
 * GET /dashboard/runs/{id} without the environment and scope its receipt is found by (a link cut
 * short, or typed from a run id): a page saying what the link needs, not a JSON problem.
 */
import { Layout } from "./layout";

export function RunLinkPage({ nonce, id }: { nonce: string; id: string }) {
  return (
    <Layout title={`Run ${id} · Sponson Edge`} nonce={nonce}>
      <header class="top">
        <h1>
          <a href="/dashboard">Sponson Edge</a> · run
        </h1>
      </header>
      <main>
        <section id="run-link" aria-labelledby="run-link-title">
          <h2 id="run-link-title">
            <span class="mono">{id}</span>
          </h2>
          <p class="empty">
            This link does not say which scope the run belongs to. A run's page is{" "}
            <code>/dashboard/runs/{id}?environment=&lt;environment&gt;&amp;scope=&lt;scope&gt;</code>, as the
            pull-request comment and the dashboard link it. Find the run under Recent runs on the{" "}
            <a href="/dashboard">dashboard</a>.
          </p>
        </section>
      </main>
    </Layout>
  );
}
