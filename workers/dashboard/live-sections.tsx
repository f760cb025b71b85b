/** The part of the page the script re-fetches and swaps in (GET /dashboard/live). */
import { LockCards } from "./lock-cards";
import { RecentRuns } from "./recent-runs";
import { ScopeLedgers } from "./scope-ledgers";
import type { Snapshot } from "./snapshot";
import { isFiltered } from "./view-filter";

export interface LiveProps {
  snapshot: Snapshot;
  releaseCsrf: string | null;
}

export function LiveSections({ snapshot, releaseCsrf }: LiveProps) {
  return (
    <div data-now={snapshot.now}>
      <LockCards locks={snapshot.locks} now={snapshot.now} releaseCsrf={releaseCsrf} />
      <RecentRuns runs={snapshot.runs} filtered={isFiltered(snapshot.filter)} />
      <ScopeLedgers
        scopes={snapshot.scopes}
        total={snapshot.totalScopes}
        filter={snapshot.filter}
        pages={snapshot.pages}
      />
    </div>
  );
}
