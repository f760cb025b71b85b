/**
 * A scope-state notice claim whose sweep died before sending lapses after the grace period
 * (docs/operations.md, "Notifications"): another sweep may not tell within it, and tells after it.
 */
import { describe, expect, it } from "vitest";
import { decideResend, type ResendRow } from "../../durable-objects/close-resend-rules";

const DAY_MS = 86_400_000;
const GRACE_MS = 6 * 3_600_000;
const ask = (now: number) => ({ deliveryId: "d-1", now, graceMs: GRACE_MS, maxResends: 0, lingerMs: DAY_MS });

describe("a notice claim whose sweep never confirmed it", () => {
  it("blocks another sweep for graceMs - 1, then lapses: lingering and exhausted are told again", () => {
    const closedAt = 0;
    const t = DAY_MS + 1_000;
    const first = decideResend(closedAt, null, ask(t));
    expect(first).toMatchObject({ kind: "exhausted", lingering: true, notify: true });
    // What the claim step stores for both notices; the sweep then dies before confirming.
    const claimed: ResendRow = {
      resends: 0,
      lastAt: closedAt,
      lingeringNotifiedAt: null,
      exhaustedNotifiedAt: null,
      lingeringClaimedAt: t,
      exhaustedClaimedAt: t,
    };
    expect(decideResend(closedAt, claimed, ask(t + GRACE_MS - 1))).toMatchObject({
      kind: "exhausted",
      lingering: false,
      notify: false,
    });
    expect(decideResend(closedAt, claimed, ask(t + GRACE_MS))).toMatchObject({
      kind: "exhausted",
      lingering: true,
      notify: true,
    });
    // Once confirmed, never again.
    const told = { ...claimed, lingeringNotifiedAt: t, exhaustedNotifiedAt: t };
    expect(decideResend(closedAt, told, ask(t + 10 * GRACE_MS))).toMatchObject({
      lingering: false,
      notify: false,
    });
  });
});
