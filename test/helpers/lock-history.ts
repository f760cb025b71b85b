/**
 * The one lock-history checker (docs/design.md, "Lease protocol"), pure: it returns the violations
 * it finds, so the control tests (test/locks/history-checker.test.ts, test/locks/lock-history.test.ts)
 * show it catching bad histories as well as passing good ones. Three views of one promise — one
 * holder at a time, fencing tokens only increase:
 * - checkLockHistory: a concurrent history the clients recorded (a model of what they were told),
 *   with mutual exclusion, FIFO for waiters, tokens 1..n and write combining;
 * - checkLeaseEvents: grants and releases as clients saw them, as half-open holds;
 * - checkHistorySequence: the object's own bounded history, in order.
 *
 * checkLockHistory: with write combining, a report acts for its token like a renewal (never after
 * the next grant), and a waiter told its change was written is never granted and was reported by
 * the holder of that token. `inv`/`res` are the client's logical invocation/response instants (one
 * counter for all callers, so `a.res < b.inv` means a finished before b started);
 * `at`/`since`/`expiresAt` are object time.
 */
import type { HistoryEntry } from "../../shared/schemas/lock";

export type LockEvent =
  | { type: "grant"; holder: string; token: number; at: number; expiresAt: number; waited: boolean }
  | { type: "reacquire" | "renew"; holder: string; token: number; expiresAt: number }
  | { type: "renew-lost"; holder: string; token: number }
  | { type: "release"; holder: string; token: number; released: boolean; at: number }
  | { type: "force" | "expire"; token: number | null; at: number }
  | { type: "refused"; holder: string; waited: boolean; code: string }
  | { type: "snapshot"; waiters: Array<{ holder: string; since: number }> }
  /** A holder took the queue and reported it; `reported` names the waiters it wrote for. */
  | { type: "combine"; holder: string; token: number; ok: boolean; reported: string[] }
  /** A waiter answered "written for you" by `by` under `token`: no grant. */
  | { type: "combined"; holder: string; by: string; token: number };

export type Recorded = LockEvent & { inv: number; res: number };

type Grant = Extract<Recorded, { type: "grant" }>;

export function checkLockHistory(history: readonly Recorded[]): string[] {
  const v: string[] = [];
  const grants = history.filter((e): e is Grant => e.type === "grant").sort((a, b) => a.token - b.token);
  checkTokens(grants, v);
  checkExclusion(history, grants, v);
  checkFifo(history, grants, v);
  checkCombined(history, grants, v);
  for (const e of history) {
    if (e.type === "refused" && e.code !== "LOCK_HELD") v.push(`${e.holder} refused with ${e.code}`);
  }
  return v;
}

function checkTokens(grants: readonly Grant[], v: string[]): void {
  grants.forEach((g, i) => {
    if (g.token !== i + 1) v.push(`tokens are not 1..n: position ${i + 1} holds token ${g.token}`);
    const prev = grants[i - 1];
    if (prev && g.at < prev.at) v.push(`token ${g.token} granted at ${g.at}, before token ${prev.token}`);
  });
  // Real-time order: a grant that finished before another started has the lower token.
  for (const a of grants) {
    for (const b of grants) {
      if (a.res < b.inv && a.token >= b.token)
        v.push(`token ${b.token} granted after token ${a.token} completed`);
    }
  }
}

/** When lease `token` stopped being valid, as far as anyone observed it. */
function endOf(history: readonly Recorded[], token: number): number {
  let end = Infinity;
  let expiresAt = -Infinity;
  for (const e of history) {
    if ((e.type === "grant" || e.type === "reacquire" || e.type === "renew") && e.token === token)
      expiresAt = Math.max(expiresAt, e.expiresAt);
    if (e.type === "release" && e.released && e.token === token) end = Math.min(end, e.at);
    if (e.type === "force" && e.token === token) end = Math.min(end, e.at);
    // The injected expiry rewrote expires_at to before at - 1 (past its lock-delay too).
    if (e.type === "expire" && e.token === token) end = Math.min(end, e.at - 1);
  }
  return Math.min(end, expiresAt);
}

function checkExclusion(history: readonly Recorded[], grants: readonly Grant[], v: string[]): void {
  for (let i = 1; i < grants.length; i++) {
    const prev = grants[i - 1] as Grant;
    const next = grants[i] as Grant;
    const end = endOf(history, prev.token);
    if (next.at < end) {
      v.push(
        `${next.holder} (token ${next.token}) granted at ${next.at} while token ${prev.token} was valid until ${end}`,
      );
    }
    // Nothing acts for the old token once the new grant has completed.
    for (const e of history) {
      const late = e.inv > next.res && e.type !== "grant" && "token" in e && e.token === prev.token;
      const acted =
        e.type === "renew" ||
        e.type === "reacquire" ||
        (e.type === "release" && e.released) ||
        (e.type === "combine" && e.ok);
      if (late && acted)
        v.push(`${e.type} of token ${prev.token} succeeded after token ${next.token} was granted`);
    }
  }
  const released = history
    .filter((e) => e.type === "release" && e.released)
    .map((e) => (e as { token: number }).token);
  if (new Set(released).size !== released.length) v.push("a token was released twice");
}

function checkFifo(history: readonly Recorded[], grants: readonly Grant[], v: string[]): void {
  // A holder's first grant is its acquire; later grants under the same name are re-acquires.
  const tokenOf = new Map<string, Grant>();
  for (const g of grants) if (!tokenOf.has(g.holder)) tokenOf.set(g.holder, g);
  const since = new Map<string, number>();
  const before = new Set<string>();
  for (const e of history) {
    if (e.type !== "snapshot") continue;
    e.waiters.forEach((w, i) => {
      since.set(w.holder, w.since);
      for (const later of e.waiters.slice(i + 1)) before.add(`${w.holder}\u0000${later.holder}`);
    });
  }
  for (const pair of before) {
    const [a, b] = pair.split("\u0000") as [string, string];
    if (before.has(`${b}\u0000${a}`)) v.push(`queue order of ${a} and ${b} changed between snapshots`);
    const ga = tokenOf.get(a);
    const gb = tokenOf.get(b);
    if (ga && gb && ga.token > gb.token) v.push(`${b} was queued behind ${a} but granted first (FIFO)`);
  }
  // Nobody is granted past a queued waiter: a grant to a newcomer, or to a waiter queued later,
  // while an earlier waiter was still queued (it was granted afterwards) breaks FIFO.
  for (const g of grants) {
    const gSince = since.get(g.holder);
    for (const [holder, s] of since) {
      const w = tokenOf.get(holder);
      if (!w || w.token <= g.token || s >= g.at) continue;
      if (gSince === undefined ? !g.waited : gSince > s)
        v.push(`${g.holder} (token ${g.token}) was granted while ${holder} waited ahead of it`);
    }
  }
}

/** A combined answer: a report under a lease of `by`, naming this waiter, and no grant to it ever. */
function checkCombined(history: readonly Recorded[], grants: readonly Grant[], v: string[]): void {
  for (const e of history) {
    if (e.type !== "combined") continue;
    const lease = grants.find((g) => g.token === e.token);
    if (!lease || lease.holder !== e.by)
      v.push(`${e.holder} told token ${e.token} of ${e.by} wrote for it, never granted to ${e.by}`);
    const reported = history.some(
      (r) =>
        r.type === "combine" && r.ok && r.token === e.token && r.reported.includes(e.holder) && r.inv < e.res,
    );
    if (!reported)
      v.push(`${e.holder} told its change was written under token ${e.token} with no such report`);
    if (grants.some((g) => g.holder === e.holder))
      v.push(`${e.holder} was granted after its change was written`);
  }
}

/** Coverage of the FIFO check: queue orders observed between two waiters that were both granted. */
export function fifoPairsChecked(history: readonly Recorded[]): number {
  const granted = new Set(history.filter((e) => e.type === "grant").map((e) => (e as Grant).holder));
  const pairs = new Set<string>();
  for (const e of history) {
    if (e.type !== "snapshot") continue;
    const queued = e.waiters.map((w) => w.holder).filter((h) => granted.has(h));
    queued.forEach((a, i) => {
      for (const b of queued.slice(i + 1)) pairs.add(`${a}\u0000${b}`);
    });
  }
  return pairs.size;
}

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
