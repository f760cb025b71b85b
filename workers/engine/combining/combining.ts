/**
 * Write combining, the engine's side (docs/design.md, "Write combining"). A run that queues for a
 * parent lock hands the lock object its changes there as data (after their intents are durable);
 * the holder takes them under its lease and admits each exactly as it admits its own lines: a known
 * op, a connection of the service's configuration allowed in the waiter's environment, on this very
 * object and of this group's kind, and the write policy of the waiter's environment. What it cannot
 * admit goes back to the waiter, which writes it itself as it would without combining.
 */

import { SponsonError } from "../../../shared/errors";
import type {
  CombinedOutcome,
  QueuedChange,
  QueuedWaiter,
  ReturnedChange,
} from "../../../shared/schemas/combine";
import { entryOfKey } from "../../adapters/op-spec";
import type { WriterRun } from "../contracts/writer-run";
import type { EngineDeps } from "../deps";
import { groupKeyOf, type Item } from "../plan/item";
import type { Change, Decided, Participant } from "../rules/group-decisions";

/**
 * A change's id within its run's queued changes on one object: the action and the item's op and key
 * (the object is the lock's own, so with it they are the item's identity; the line is only a
 * label). The action is part of it: an answer stored for a create never answers a later removal.
 */
export function changeId({ item, action }: Pick<Change, "item" | "action">): string {
  return `${action}\n${item.opName}\n${item.key}`;
}

export function queuedChangeOf(
  { item, action, inLedger }: Change,
  run: { id: string; environment: string },
  owner: string,
): QueuedChange {
  return {
    id: changeId({ item, action }),
    action,
    op: item.opName,
    key: item.key,
    params: item.params,
    connection: item.connection,
    owner,
    environment: run.environment,
    runId: run.id,
    ...(inLedger ? { inLedger } : {}),
  };
}

/** A waiter's change the holder writes with its own, and whose change it is. */
export interface Queued extends Participant {
  waiter: string;
  id: string;
  /** The waiter's run: its scope lease is checked again right before the write. */
  runId: string;
}

/**
 * The changes waiters queued that a group write carries (the holder, holder.ts): handed to its
 * critical section (write/section-io.ts), which asks right before the write whose runs are gone.
 */
export interface Carried {
  readonly queued: readonly Queued[];
  /** The waiters whose run no longer holds its scope lease, asked right before the write. */
  goneNow(): Promise<string[]>;
}

/** Admits each of a waiter's changes for the group `first` leads, or says why it goes back. */
export function admitQueued(
  deps: EngineDeps,
  run: Pick<WriterRun, "errorOf">,
  first: Item,
  waiter: QueuedWaiter,
): { accepted: Queued[]; returned: ReturnedChange[] } {
  const accepted: Queued[] = [];
  const returned: ReturnedChange[] = [];
  for (const queued of waiter.changes) {
    try {
      accepted.push({
        ...admit(deps, first, queued),
        waiter: waiter.waiter,
        id: queued.id,
        runId: queued.runId,
      });
    } catch (err) {
      returned.push({ id: queued.id, error: run.errorOf(err, [queued.id]) });
    }
  }
  return { accepted, returned };
}

function admit(deps: EngineDeps, first: Item, queued: QueuedChange): Participant {
  const where = `queued change ${queued.key} of ${queued.runId}`;
  const op = deps.ops.get(queued.op);
  if (!op) throw new SponsonError("INTERNAL", `${where}: this service does not know op "${queued.op}"`);
  const connection = deps.connections.use(queued.connection, queued.environment, where);
  if (connection.type !== op.providerType) {
    throw new SponsonError(
      "INTERNAL",
      `${where}: connection "${queued.connection}" is not of type ${op.providerType}`,
    );
  }
  const parsed = op.params.safeParse(queued.params);
  if (!parsed.success)
    throw new SponsonError("VALIDATION", `${where}: params are not valid for ${queued.op}`);
  const params = parsed.data;
  const key = op.key(params);
  const parent = op.lockOn(params, connection.settings);
  const item: Item = {
    // A label only: the holder records nothing under the waiter's line.
    line: `queued:${queued.runId}`,
    opName: queued.op,
    op,
    connection: queued.connection,
    params,
    key,
    parent,
  };
  if (key !== queued.key || groupKeyOf(item) !== groupKeyOf(first)) {
    throw new SponsonError("INTERNAL", `${where}: not an item of this object's write`);
  }
  deps.policy?.check({
    environment: queued.environment,
    op: queued.op,
    identity: parent,
    item: entryOfKey(op, key),
  });
  const change: Change = { item, action: queued.action, ...(queued.inLedger ? { inLedger: true } : {}) };
  return { change, owner: queued.owner };
}

const HOLDING = { written: "created", already: "created", shared: "shared", foreign: "foreign" } as const;

/** How a change another run wrote for this one is recorded here (its ledger; no write, no lease). */
export function decidedFromAnswer(
  part: Participant,
  outcome: CombinedOutcome["outcome"],
  by: string,
): Decided {
  // A create the holder wrote or found already this scope's is the scope's creation; a join keeps
  // its kind. Removals leave no holding.
  const holding = part.change.action !== "create" || outcome === "left" ? undefined : HOLDING[outcome];
  return {
    ...part,
    outcome,
    write: false,
    ownersBefore: [],
    ownersAfter: [],
    ...(holding ? { holding } : {}),
    writtenBy: by,
  };
}

/**
 * A refusal (LOCK_HELD) in which the lock object vouches that no holder ever took this waiter's
 * changes: the one failure of a combining acquire after which its intents may go.
 */
export function untakenRefusal(err: unknown): boolean {
  return err instanceof SponsonError && err.code === "LOCK_HELD" && err.untaken;
}
