/**
 * What a run under the scope lease works with, passed down as one (docs/design.md, "Run algorithm",
 * steps 4 to 9): the lifecycle builds it once the receipt is taken; recovery, the action's body and
 * the removals read what they need of it.
 */
import type { EngineDeps } from "../deps";
import type { ItemWriter } from "../write/item-writer";
import type { HeldScope } from "./held-scope";
import type { ReceiptSession } from "./receipt-session";
import type { Run } from "./run";
import type { RunWaiting, ScopeRequest } from "./scope-request";

export interface RunContext {
  /** The engine's deps as this run sees them: recording into its metrics. */
  deps: EngineDeps;
  req: ScopeRequest;
  run: Run;
  /** The run's copy of the receipt; every save is conditional on the etag it holds. */
  session: ReceiptSession;
  /** The only writer of provider objects, under their parent leases. */
  writer: ItemWriter;
  /** The scope lease, and what its release hands the next holder. */
  lease: HeldScope;
  /** How the run waits for locks: its one deadline, started when it asked for the scope lease. */
  waiting: RunWaiting;
}
