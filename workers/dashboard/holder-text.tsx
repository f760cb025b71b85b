/**
 * A lock's run as a person reads it (docs/design.md, "Lock answers"): the pull request and the CI
 * run as links, the actor, and whether the run only declared them. The run id when nothing else is
 * known; `(another repository's run)` is shown as it comes (repository-view.ts hid the rest).
 */
import { PLATFORM_NAMES, type RunHolder } from "../../shared/schemas/provenance";

/** Only https links are ever rendered (a declared runUrl is checked https at the request, too). */
function safeHref(url: string | null): string | null {
  return url?.startsWith("https://") ? url : null;
}

export function HolderText({ run, by }: { run: string | null; by: RunHolder | null }) {
  if (run === null && by === null) return <span class="muted">none</span>;
  if (by === null || (by.pullRequest === null && by.actor === null && by.runUrl === null && !by.platform)) {
    return <span class="mono holder">{by?.run ?? run}</span>;
  }
  const pull =
    by.pullRequest === null ? null : by.repository === null ? (
      `pull #${by.pullRequest}`
    ) : (
      <a class="pull" href={`https://github.com/${by.repository}/pull/${by.pullRequest}`}>
        pull #{by.pullRequest}
      </a>
    );
  const ci = safeHref(by.runUrl);
  return (
    <span class="holder" data-run={by.run}>
      {pull ?? <span class="mono">{by.run}</span>}
      {by.platform ? (
        <span class="platform">
          , {PLATFORM_NAMES[by.platform.kind]} deployment <span class="mono">{by.platform.deployment}</span>
        </span>
      ) : null}
      {by.actor === null ? null : <> ({by.actor})</>}
      {ci === null ? null : (
        <>
          {" · "}
          <a class="ci-run" href={ci}>
            {by.platform ? "deployment" : "CI run"}
          </a>
        </>
      )}
      {by.declared ? <span class="muted"> · declared</span> : null}
    </span>
  );
}
