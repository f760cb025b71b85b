/**
 * Whether the sweep re-sends the destroys of a close whose messages were confirmed on the queue but
 * whose scope still owns entries (docs/design.md, "Webhooks and the sweep"). Pure: the scope-state
 * object applies it in one synchronous step, so two sweeps at once cannot both re-send, nor both
 * send one notice.
 */
import type { ResendAsk, ResendDecision } from "../shared/rpc/scope-state";

export type ResendRow = {
  resends: number;
  lastAt: number;
  lingeringNotifiedAt: number | null;
  exhaustedNotifiedAt: number | null;
  lingeringClaimedAt: number | null;
  exhaustedClaimedAt: number | null;
};

/**
 * A notice is due when it was never told and no other sweep holds a claim on it. A claim is given
 * back when its send fails; one whose sweep died before sending lapses after a grace period, like
 * a re-send's claim (docs/operations.md, "Notifications").
 */
function noticeDue(
  notifiedAt: number | null | undefined,
  claimedAt: number | null | undefined,
  ask: ResendAsk,
) {
  return notifiedAt == null && (claimedAt == null || ask.now - claimedAt >= ask.graceMs);
}

export function decideResend(closedAt: number, row: ResendRow | null, ask: ResendAsk): ResendDecision {
  const resends = row?.resends ?? 0;
  // Each re-send gets a grace period of its own: its destroy may be retrying on the queue.
  const since = Math.max(closedAt, row?.lastAt ?? closedAt);
  // Told once per close, however many sweeps still find it.
  const lingering =
    ask.now - closedAt >= ask.lingerMs && noticeDue(row?.lingeringNotifiedAt, row?.lingeringClaimedAt, ask);
  if (ask.now - since < ask.graceMs) return { kind: "wait", resends, lingering };
  if (resends >= ask.maxResends) {
    const notify = noticeDue(row?.exhaustedNotifiedAt, row?.exhaustedClaimedAt, ask);
    return { kind: "exhausted", resends, lingering, notify };
  }
  return { kind: "resend", resends: resends + 1, lingering };
}
