/**
 * The phase of one group write's fence (docs/design.md, "One group write, one fence") and its one
 * pure rule, `fenceStep`: what a fence call finds owed, what it is to do about it, and what is owed
 * after it. No `this`, no I/O: `Fence` (fence.ts) carries out the effect each step returns and
 * keeps the next phase, so every saved round trip and every owed check reads off this file alone.
 */

/**
 * What stands for the parent's check after the write: a renewal of its own, a token-checked call
 * that follows anyway (`follow`), or the release that ends the lease (`releaseAfterWrite`).
 */
export type ParentCheckAfter = "renew" | "call" | "release";

/**
 * Where the fence's check after the write stands:
 * - `unfenced`: the test-only control, no check after any write ("Lease protocol").
 * - `unwritten`: nothing written under the fence yet: a failed call after it checks nothing.
 * - `partly-sent`: a send of several requests wrote part of its changes and no check after it was
 *   made yet: the next token-checked parent call, else `failure()`, makes it ("A send of several
 *   requests refused half-way").
 * - `checked`: written and checked after (a renewal, or the release made): a later failed call
 *   still makes a parent check, as the write stands only while the lease is held.
 * - `call-owed`: a token-checked parent call that follows the write stands for its check after.
 * - `release-owed`: the parent's release stands for it.
 * - `in-doubt`: a write under the fence has an unknown outcome; nothing more is owed (the lease ends
 *   by abandonment or a quiet release) and the run takes the object no more. Terminal.
 */
export type FenceStage =
  | "unfenced"
  | "unwritten"
  | "partly-sent"
  | "checked"
  | "call-owed"
  | "release-owed"
  | "in-doubt";

export interface FencePhase {
  readonly stage: FenceStage;
  /** The claims were the last parent call: they renewed the lease, the check before the write. */
  readonly claimedLast: boolean;
}

/** A fence call, or what its I/O answered, as far as the phase cares. */
export type FenceEvent =
  /** A fence call that is not the claims' answer: an ownership read, a withdraw, a claim begun. */
  | { kind: "other-call" }
  /** The claims were accepted by the lock object with the live token. */
  | { kind: "claimed" }
  | { kind: "before-write" }
  /** The send wrote part of its changes before it stopped (`PartlySent`). */
  | { kind: "sent-partly" }
  /** The send (or an earlier attempt's) wrote: the check after it is made now, by `after`'s means. */
  | { kind: "written"; after: ParentCheckAfter }
  /** That check passed; `parent`: the write has a parent lease (else nothing is released). */
  | { kind: "checked-after"; after: ParentCheckAfter; parent: boolean }
  /** The group fails; `crash`: the test-only simulated crash, which makes no call. */
  | { kind: "failure"; crash: boolean }
  /** A call after the write begins (`follow`). */
  | { kind: "follow" }
  /** That call, a token-checked parent call, was refused LOCK_LOST (also by the local deadline). */
  | { kind: "call-refused" }
  /** That call failed any other way (or it is not the parent's token-checked call). */
  | { kind: "call-failed" }
  | { kind: "release" }
  /** A write's outcome is unknown; `parent`: there is a parent lease to end (nothing is in doubt else). */
  | { kind: "doubt"; parent: boolean };

/** What the fence does for a step: the checks it makes, or how it makes a call. */
export type FenceEffect =
  | "none"
  /** Before the write: both leases asserted locally, the claims being the parent's round trip. */
  | "assert-held"
  /** Before the write: the scope's lease asserted, the parent's checked by a round trip. */
  | "round-trip"
  /** After the write: the parent's renewal, then the scope's; a failure is the unknown outcome. */
  | "renew-both"
  /** After the write: the scope's renewal alone (a call or the release stands for the parent's). */
  | "check-scope"
  /** A failure after a partial send: the parent's check, then the scope's; lost, the outcome is unknown. */
  | "check-both"
  /** The call is made as it is: nothing written, or nothing more owed. */
  | "plain-call"
  /** The call is made, and a failure of it is a step (`call-refused`, `call-failed`). */
  | "watched-call"
  /** The failed call stood for the check after: the write's outcome is unknown. */
  | "unknown-outcome"
  /** The failed call makes the parent's check it stands for; its own error stands if that passes. */
  | "check-parent"
  /** The release is the check after: any answer but `released` is the unknown outcome. */
  | "release-as-check";

export interface FenceStep {
  phase: FencePhase;
  effect: FenceEffect;
}

type StageStep = { stage: FenceStage; effect: FenceEffect };

/** Written, the check after made or owed: a later failed call makes a parent check. */
const WRITTEN: ReadonlySet<FenceStage> = new Set(["partly-sent", "checked", "call-owed", "release-owed"]);
/** Where a write owes its check after at all: not under the control, not once in doubt. */
const FENCED: ReadonlySet<FenceStage> = new Set(["unwritten", ...WRITTEN]);

/** A fence before any call: `checkAfter` off only under the test-only `unfenced` control. */
export function fenceStart(checkAfter: boolean): FencePhase {
  return { stage: checkAfter ? "unwritten" : "unfenced", claimedLast: false };
}

/** The next phase after `event`, and the effect the fence carries out for it. */
export function fenceStep(phase: FencePhase, event: FenceEvent): FenceStep {
  const { stage, effect }: StageStep =
    event.kind === "before-write"
      ? { stage: phase.stage, effect: phase.claimedLast ? "assert-held" : "round-trip" }
      : stageStep(phase.stage, event);
  return { phase: { stage, claimedLast: claimedLastAfter(phase.claimedLast, event) }, effect };
}

/**
 * The claims are the check before the write only while no other fence call came between: the
 * write's own check before, an ownership read, a withdraw, a claim begun, a call after a write.
 */
function claimedLastAfter(claimedLast: boolean, event: FenceEvent): boolean {
  if (event.kind === "claimed") return true;
  const between = event.kind === "other-call" || event.kind === "before-write" || event.kind === "follow";
  return between ? false : claimedLast;
}

/** What is owed once the check after the write passed, by the means `after` names. */
function owedAfter(after: ParentCheckAfter, parent: boolean): FenceStage {
  if (after === "call") return "call-owed";
  return after === "release" && parent ? "release-owed" : "checked";
}

/** The stage's part of a step (the claims' part is `claimedLastAfter`). */
function stageStep(stage: FenceStage, event: FenceEvent): StageStep {
  const stay = (effect: FenceEffect = "none"): StageStep => ({ stage, effect });
  switch (event.kind) {
    case "sent-partly":
      return FENCED.has(stage) ? { stage: "partly-sent", effect: "none" } : stay();
    case "written":
      if (!FENCED.has(stage)) return stay();
      return stay(event.after === "renew" ? "renew-both" : "check-scope");
    case "checked-after":
      return FENCED.has(stage) ? { stage: owedAfter(event.after, event.parent), effect: "none" } : stay();
    case "failure":
      return stage === "partly-sent" && !event.crash ? { stage: "call-owed", effect: "check-both" } : stay();
    case "follow":
      return stay(WRITTEN.has(stage) ? "watched-call" : "plain-call");
    case "call-refused":
      if (stage === "partly-sent" || stage === "call-owed") return stay("unknown-outcome");
      return stay(WRITTEN.has(stage) ? "check-parent" : "none");
    case "call-failed":
      return stay(WRITTEN.has(stage) ? "check-parent" : "none");
    case "release":
      return stage === "release-owed" ? { stage: "checked", effect: "release-as-check" } : stay();
    case "doubt":
      return event.parent ? { stage: "in-doubt", effect: "none" } : stay();
    default:
      // other-call, claimed (and before-write, decided by the claims alone): no stage changes.
      return stay();
  }
}
