/**
 * Whether the sweep re-sends the destroys of a close whose messages were confirmed on the queue but
 * whose scope still owns entries (docs/design.md, "Webhooks and the sweep"). Pure: the scope-state
 * object applies it in one synchronous step, so two sweeps at once cannot both re-send.
 */
import type { ResendAsk, ResendDecision } from "../shared/rpc/scope-state";

export type ResendRow = {
  resends: number;
  lastAt: number;
  lingeringNotifiedAt: number | null;
  exhaustedNotifiedAt: number | null;
};

export function decideResend(closedAt: number, row: ResendRow | null, ask: ResendAsk): ResendDecision {
  const resends = row?.resends ?? 0;
  // Each re-send gets a grace period of its own: its destroy may be retrying on the queue.
  const since = Math.max(closedAt, row?.lastAt ?? closedAt);
  // Told once per close, however many sweeps still find it.
  const lingering = ask.now - closedAt >= ask.lingerMs && row?.lingeringNotifiedAt == null;
  if (ask.now - since < ask.graceMs) return { kind: "wait", resends, lingering };
  if (resends >= ask.maxResends) {
    return { kind: "exhausted", resends, lingering, notify: row?.exhaustedNotifiedAt == null };
  }
  return { kind: "resend", resends: resends + 1, lingering };
}
