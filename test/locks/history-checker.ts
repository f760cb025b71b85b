/**
 * Checks a recorded lease history for the two promises of docs/design.md, "Lease protocol": no two holders
 * ever overlap, and fencing tokens only increase. Pure: it returns the violations it finds, so a test can
 * show it catching a bad history (the control case) as well as passing a good one.
 */
import type { HistoryEntry } from "../../shared/schemas/lock";

/** One grant or release as a client saw it, stamped with the object's own time and token. */
export interface LeaseEvent {
  type: "grant" | "release";
  holder: string;
  token: number;
  at: number;
}

interface Interval {
  holder: string;
  token: number;
  from: number;
  to: number;
}

/** Client-side events: each token granted once, released by its holder, intervals disjoint. */
export function checkLeaseEvents(events: readonly LeaseEvent[]): string[] {
  const violations: string[] = [];
  const grants = new Map<number, LeaseEvent>();
  const releases = new Map<number, LeaseEvent>();
  for (const e of events) {
    const seen = e.type === "grant" ? grants : releases;
    if (seen.has(e.token)) violations.push(`token ${e.token} ${e.type}ed twice`);
    seen.set(e.token, e);
  }
  for (const [token, release] of releases) {
    const grant = grants.get(token);
    if (!grant) violations.push(`token ${token} released by ${release.holder} but never granted`);
    else if (grant.holder !== release.holder)
      violations.push(`token ${token} granted to ${grant.holder} but released by ${release.holder}`);
    else if (release.at < grant.at) violations.push(`token ${token} released before it was granted`);
  }
  const intervals: Interval[] = [...grants.values()]
    .map((g) => ({ holder: g.holder, token: g.token, from: g.at, to: releases.get(g.token)?.at ?? Infinity }))
    .sort((a, b) => a.token - b.token);
  for (let i = 1; i < intervals.length; i++) {
    const prev = intervals[i - 1] as Interval;
    const next = intervals[i] as Interval;
    // Tokens increase with time: a higher token is never granted before a lower one.
    if (next.from < prev.from) {
      violations.push(`token ${next.token} was granted before token ${prev.token}`);
    }
    // Half-open holds [from, to): a release and the next grant may share a millisecond.
    if (next.from < prev.to) {
      violations.push(
        `${next.holder} (token ${next.token}) was granted at ${next.from} while ${prev.holder} ` +
          `(token ${prev.token}) held the lock until ${prev.to}`,
      );
    }
  }
  return violations;
}

const OPENS = new Set(["acquired", "taken-over"]);
const CLOSES = new Set(["released", "released-expired", "expired", "claim-lapsed", "force-released"]);
/** Transitions of the live lease that leave it live. */
const KEEPS = new Set(["renewed", "claimed"]);

/**
 * The object's own history in order: every grant comes after the previous lease closed, with a
 * higher token, renewals belong to the live lease, and a waiter's changes are only ever written
 * (`combined`) under the live lease's token. The history is bounded, so the window may
 * start in the middle of a lease: entries before the first grant are skipped.
 */
export function checkHistorySequence(history: readonly HistoryEntry[]): string[] {
  const violations: string[] = [];
  const start = history.findIndex((h) => OPENS.has(h.transition));
  if (start < 0) return violations;
  let live: HistoryEntry | null = null;
  let lastToken = 0;
  for (const entry of history.slice(start)) {
    if (OPENS.has(entry.transition)) {
      if (live)
        violations.push(`${entry.holder} (token ${entry.token}) granted while ${live.holder} held it`);
      if (entry.token <= lastToken) violations.push(`token ${entry.token} after token ${lastToken}`);
      live = entry;
      lastToken = Math.max(lastToken, entry.token);
    } else if (CLOSES.has(entry.transition) || KEEPS.has(entry.transition)) {
      if (!live || live.token !== entry.token || live.holder !== entry.holder) {
        violations.push(
          `${entry.transition} of token ${entry.token} by ${entry.holder} with no such live lease`,
        );
      }
      if (CLOSES.has(entry.transition)) live = null;
    } else if (entry.transition === "combined") {
      // A waiter's changes written by the holder: under the live lease's token, for someone else.
      // It is not a grant, so it neither opens nor closes a lease.
      if (!live || live.token !== entry.token)
        violations.push(`combined for ${entry.holder} under token ${entry.token} with no such live lease`);
      else if (live.holder === entry.holder)
        violations.push(`combined for ${entry.holder} under its own lease (token ${entry.token})`);
    }
  }
  return violations;
}
