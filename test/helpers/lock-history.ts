/**
 * The one lock-history checker (docs/design.md, "Lease protocol"), pure: it returns the violations
 * it finds, so the control tests (test/locks/history-checker.test.ts, test/locks/lock-history.test.ts)
 * show it catching bad histories as well as passing good ones. One promise — one holder at a time,
 * fencing tokens only increase — checked on one event type, whoever recorded it:
 * - clients recording what they were told (test/locks/lock-history-runner.ts, concurrent acquirers);
 * - the object's own bounded history, through `objectHistory` (which only translates its entries)
 *   with `{ window: true }`: it may start mid-lease, so the first token need not be 1.
 *
 * Checked: tokens 1..n (or consecutive, in a window), each granted once, in real-time order; no grant
 * while the previous lease was valid; nothing acts for a token but its holder, between its grant
 * and its end, and never once the next token is granted; FIFO for waiters; with write combining, a
 * report acts for its token like a renewal, and a waiter told its change was written is never
 * granted, was reported by the holder of that token, and is not that holder.
 *
 * `inv`/`res` are the recorder's logical invocation/response instants (one counter for all callers,
 * so `a.res < b.inv` means a finished before b started); `at`/`since`/`expiresAt` are object time.
 */
import type { HistoryEntry } from "../../shared/schemas/lock";

export type LockEvent =
  | { type: "grant"; holder: string; token: number; at: number; expiresAt: number; waited: boolean }
  | { type: "reacquire" | "renew"; holder: string; token: number; expiresAt: number }
  | { type: "renew-lost"; holder: string; token: number }
  | { type: "release"; holder: string; token: number; released: boolean; at: number }
  /** The lease ended without its holder's release; `holder`, when known, must be the token's. */
  | { type: "force" | "expire"; token: number | null; at: number; holder?: string }
  | { type: "refused"; holder: string; waited: boolean; code: string }
  | { type: "snapshot"; waiters: Array<{ holder: string; since: number }> }
  /** A holder took the queue and reported it; `reported` names the waiters it wrote for. */
  | { type: "combine"; holder: string; token: number; ok: boolean; reported: string[] }
  /** A waiter answered "written for you" by `by` under `token`: no grant. */
  | { type: "combined"; holder: string; by: string; token: number };

export type Recorded = LockEvent & { inv: number; res: number };

export interface CheckOptions {
  /** The history is a bounded window (the object's own): its first grant need not be token 1. */
  window?: boolean;
}

type Grant = Extract<Recorded, { type: "grant" }>;

export function checkLockHistory(history: readonly Recorded[], options: CheckOptions = {}): string[] {
  const v: string[] = [];
  const grants = history.filter((e): e is Grant => e.type === "grant").sort((a, b) => a.token - b.token);
  checkTokens(grants, options, v);
  checkExclusion(history, grants, v);
  checkActs(history, grants, v);
  checkFifo(history, grants, v);
  checkCombined(history, grants, v);
  for (const e of history) {
    if (e.type === "refused" && e.code !== "LOCK_HELD") v.push(`${e.holder} refused with ${e.code}`);
  }
  return v;
}

function checkTokens(grants: readonly Grant[], options: CheckOptions, v: string[]): void {
  const first = options.window ? (grants[0]?.token ?? 1) : 1;
  grants.forEach((g, i) => {
    const prev = grants[i - 1];
    if (prev && g.token === prev.token) v.push(`token ${g.token} granted twice`);
    else if (g.token !== first + i)
      v.push(`tokens are not ${first}..n: position ${i + 1} holds token ${g.token}`);
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

/** A lease's end: a release by its holder, or the object ending it (force, expiry, lapsed claim). */
const isEnd = (e: Recorded): boolean => (e.type === "release" && e.released) || e.type === "force";

/** When lease `token` stopped being valid, as far as anyone observed it. */
function endOf(history: readonly Recorded[], token: number): number {
  let end = Infinity;
  let expiresAt = -Infinity;
  for (const e of history) {
    if ((e.type === "grant" || e.type === "reacquire" || e.type === "renew") && e.token === token)
      expiresAt = Math.max(expiresAt, e.expiresAt);
    if (isEnd(e) && "token" in e && e.token === token) end = Math.min(end, (e as { at: number }).at);
    // The injected expiry rewrote expires_at to before at - 1 (past its lock-delay too).
    if (e.type === "expire" && e.token === token) end = Math.min(end, e.at - 1);
  }
  return Math.min(end, expiresAt);
}

/** An event that succeeded in acting for its token: only the live lease's holder may do that. */
function actsFor(e: Recorded): e is Recorded & { token: number } {
  return (
    e.type === "renew" ||
    e.type === "reacquire" ||
    (e.type === "release" && e.released) ||
    (e.type === "combine" && e.ok)
  );
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
      if (e.inv > next.res && actsFor(e) && e.token === prev.token)
        v.push(`${e.type} of token ${prev.token} succeeded after token ${next.token} was granted`);
    }
  }
  const ended = new Set<number>();
  for (const e of history) {
    if (!isEnd(e) || !("token" in e) || e.token === null) continue;
    if (ended.has(e.token)) v.push(`token ${e.token} ended twice (${e.type})`);
    ended.add(e.token);
  }
}

/** Whatever acts for a token, or ends it naming a holder, is that token's holder, inside its lease. */
function checkActs(history: readonly Recorded[], grants: readonly Grant[], v: string[]): void {
  const grantOf = new Map(grants.map((g) => [g.token, g]));
  for (const e of history) {
    const named = e.type === "force" && e.holder !== undefined && e.token !== null;
    if (!actsFor(e) && !named) continue;
    const { token, holder } = e as { token: number; holder: string };
    const grant = grantOf.get(token);
    if (!grant) {
      v.push(`${e.type} of token ${token} by ${holder}, a token never granted`);
      continue;
    }
    if (grant.holder !== holder)
      v.push(`${e.type} of token ${token} by ${holder}, granted to ${grant.holder}`);
    if (e.res < grant.inv || ("at" in e && e.at < grant.at))
      v.push(`${e.type} of token ${token} before it was granted`);
    if (!actsFor(e)) continue;
    const ended = history.find((end) => isEnd(end) && end !== e && "token" in end && end.token === token);
    if (ended && e.inv > ended.res) v.push(`${e.type} of token ${token} succeeded after its lease ended`);
  }
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

/**
 * A holder never reports writing for itself; a combined answer is a report under a lease of `by`,
 * naming this waiter, and no grant to it ever.
 */
function checkCombined(history: readonly Recorded[], grants: readonly Grant[], v: string[]): void {
  for (const e of history) {
    if (e.type === "combine" && e.ok && e.reported.includes(e.holder))
      v.push(`combined for ${e.holder} under its own lease (token ${e.token})`);
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

/**
 * The object's own history as the checker's events, translated entry by entry (check it with
 * `{ window: true }`). Its order is the object's, so each entry's position serves as its instants
 * and its time (several share a millisecond). The window may start mid-lease: entries before its
 * first grant are dropped. A `combined` entry is the holder's report that it wrote for the waiter
 * (by its token's holder in the window; none: the lease is unknown, which the checker reports), not
 * the waiter's answer: a waiter with a change handed back is still granted later. Holds neither
 * grant nor end a lease.
 */
export function objectHistory(entries: readonly HistoryEntry[]): Recorded[] {
  const start = entries.findIndex((h) => h.transition === "acquired" || h.transition === "taken-over");
  if (start < 0) return [];
  const window = entries.slice(start);
  const holderOf = new Map<number, string>();
  for (const h of window)
    if (h.transition === "acquired" || h.transition === "taken-over") holderOf.set(h.token, h.holder);
  const out: Recorded[] = [];
  let n = 0;
  const push = (e: LockEvent) => {
    n++;
    out.push({ ...e, inv: n, res: n } as Recorded);
  };
  for (const { transition, holder, token } of window) {
    switch (transition) {
      case "acquired":
      case "taken-over":
        push({ type: "grant", holder, token, at: n + 1, expiresAt: Infinity, waited: false });
        break;
      case "renewed":
      case "claimed":
        push({ type: "renew", holder, token, expiresAt: Infinity });
        break;
      case "released":
      case "released-expired":
        push({ type: "release", holder, token, released: true, at: n + 1 });
        break;
      case "expired":
      case "claim-lapsed":
      case "force-released":
        push({ type: "force", holder, token, at: n + 1 });
        break;
      case "combined": {
        const by = holderOf.get(token) ?? "(no lease in the window)";
        push({ type: "combine", holder: by, token, ok: true, reported: [holder] });
        break;
      }
      case "hold-set":
      case "hold-lifted":
      case "hold-expired":
        break;
    }
  }
  return out;
}
