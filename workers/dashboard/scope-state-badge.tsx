/** A scope's state in its ledger's summary: open or closed, at which revision, set by which event. */
import { formatUtc } from "./format";
import { lastEventAction, type ScopeStateShown } from "./scope-states";

export function ScopeStateBadge({ state }: { state: ScopeStateShown | undefined }) {
  if (state === undefined) return null;
  if (state === null) return <span class="badge failed">state unreadable</span>;
  return (
    <>
      <span class={`badge scope-${state.status}`} data-scope-status={state.status}>
        {state.status}
      </span>{" "}
      <span class="muted" data-scope-revision={state.revision}>
        {state.deliveryId === null || state.changedAt === null ? (
          "· no pull request event yet"
        ) : (
          <>
            · revision <span class="mono">{state.revision}</span> · last event {lastEventAction(state)}{" "}
            <span class="mono">{state.deliveryId}</span> at {formatUtc(state.changedAt)}
          </>
        )}
      </span>
    </>
  );
}
