/**
 * A waiting ask raced against the run's wait deadline (docs/design.md, "Lease protocol": the run's
 * side). The lock object was asked to give up a little before it, so the object's own refusal
 * normally ends the wait. When no answer has come by the deadline — it was lost, or the object
 * holds it back because a live holder took this waiter's changes (write combining) — one
 * read-only call (`waiting`, bounded by DEADLINE_READ_MS) says which. A waiter whose changes were
 * taken waits on for that holder's report, at most `takenGraceMs` past the deadline; any other
 * wait ends at the deadline with LOCK_HELD naming the holder the read saw. Such a refusal never
 * vouches that nobody took the changes (`untaken`): their intents stay.
 */
import { SponsonError } from "../../shared/errors";
import { holderWords, type LockHolder } from "../../shared/schemas/provenance";
import type { LeaseTarget } from "./lock-target";
import { ANSWER_MARGIN_MS, before, type WaitDeadline } from "./wait-deadline";

/** How long the read made at the deadline may take before the run's refusal names no holder. */
export const DEADLINE_READ_MS = 1_000;

export interface DeadlineWait {
  target: LeaseTarget;
  holder: string;
  /** The run's origin, as its reports send it (the read answers the holder as this run may see it). */
  origin: object;
  deadline: WaitDeadline;
  /** How long past the deadline a waiter whose changes a live holder took waits on (LeaseSettings). */
  takenGraceMs: number;
}

export type Waited<T> = { answered: T } | { refused: SponsonError };

/** `call`'s answer if it comes in time, else the refusal the run gets at its deadline. */
export async function untilDeadline<T>(call: Promise<T>, w: DeadlineWait): Promise<Waited<T>> {
  const { deadline } = w;
  const { clock } = deadline;
  const inTime = await before(call, deadline.at, clock);
  if (inTime) return { answered: inTime.value };
  // A read that throws, even before it is sent, only leaves the holder unnamed.
  const read = Promise.resolve().then(() => w.target.waiting({ holder: w.holder, ...w.origin }));
  const seen = (await before(read, clock.now() + DEADLINE_READ_MS, clock).catch(() => null))?.value ?? null;
  if (seen?.taken === true && w.takenGraceMs > 0) {
    // That holder may be writing this run's changes now: its report (or the end of its lease)
    // answers the call, and comes within the longest such a lease can live.
    const reported = await before(call, deadline.at + w.takenGraceMs, clock);
    if (reported) return { answered: reported.value };
    return { refused: unreported(w) };
  }
  return { refused: notGranted(w, seen) };
}

/**
 * A waiting acquire's refusal, with what is left of the run's budget. The object refuses a waiter
 * only when the wait timeout it was given ends, a margin before the deadline: a LOCK_HELD that
 * comes with no more than that margin left (or none, after a try) says the budget is spent.
 */
export function withBudget(err: unknown, deadline: WaitDeadline): unknown {
  if (!(err instanceof SponsonError) || err.code !== "LOCK_HELD" || err.detail?.budgetMs !== undefined)
    return err;
  const left = deadline.leftMs();
  const spent = left <= ANSWER_MARGIN_MS ? ` (${spentWords(deadline)})` : "";
  return new SponsonError("LOCK_HELD", `${err.message}${spent}`, {
    ...err.detail,
    ...budgetOf(deadline),
  });
}

/** The budget, as every refusal of a waiting acquire carries it. */
function budgetOf(deadline: WaitDeadline) {
  return { budgetMs: deadline.budgetMs, budgetLeftMs: deadline.leftMs() };
}

function spentWords(deadline: WaitDeadline): string {
  return `the run's wait budget of ${deadline.budgetMs / 1000} s is spent`;
}

const iso = (ms: number) => new Date(ms).toISOString();

function heldWords(name: string, holder: LockHolder | null): string {
  if (holder === null) return `${name} has no live lease but was not handed to this run`;
  if ("hold" in holder)
    return `${name} is on hold by ${holder.hold.by} (${holder.hold.reason}) until ${iso(holder.hold.until)}`;
  return `${name} is held by ${holderWords(holder)} since ${iso(holder.since)}, until ${iso(holder.expiresAt)}`;
}

type Seen = { position: number | null; holder: LockHolder | null } | null;

/** LOCK_HELD at the deadline, naming the holder the read at the deadline saw (none if it failed). */
function notGranted(w: DeadlineWait, seen: Seen): SponsonError {
  const { key, identity } = w.target;
  const name = identity ?? key;
  const what =
    seen === null
      ? `${name} was not granted to ${w.holder} and its lock object did not answer`
      : heldWords(name, seen.holder);
  const place = seen?.position ? ` (this run was number ${seen.position} in the queue)` : "";
  return new SponsonError(
    "LOCK_HELD",
    `${what}${place}: ${spentWords(w.deadline)}. Wait longer with \`--wait-timeout\`, or an admin can release it: \`sponson unlock ${key} --reason …\``,
    {
      lock: key,
      ...(seen?.holder ? { holder: seen.holder } : {}),
      ...(seen?.position ? { position: seen.position } : {}),
      ...budgetOf(w.deadline),
    },
  );
}

/** LOCK_HELD past the grace: a holder took the changes and never reported; they may be written. */
function unreported(w: DeadlineWait): SponsonError {
  const { key, identity } = w.target;
  return new SponsonError(
    "LOCK_HELD",
    `${identity ?? key}: a holder took this run's changes and had not reported ${w.takenGraceMs / 1000} s after ${spentWords(w.deadline).replace(" is spent", " was spent")}; they may have been written, so their intents stay for recovery`,
    { lock: key, taken: true, ...budgetOf(w.deadline) },
  );
}
