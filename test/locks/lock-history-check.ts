/**
 * Checks a recorded concurrent history of one lock key against docs/design.md, "Lease protocol": mutual
 * exclusion (no lease is granted before the previous one ended — released, force-released, expired), FIFO
 * grants for waiters (a waiter seen ahead of another in the queue is granted first; nobody is granted past
 * a queued waiter) and fencing tokens 1..n, each granted once, increasing with time. With write
 * combining: a report acts for its token like a renewal (never after the next grant), and a waiter
 * told its change was written is never granted and was reported by the holder of that token.
 *
 * Pure: it returns violations, so the control cases can show it catching bad histories.
 * `inv`/`res` are the client's logical invocation/response instants (one counter for all callers,
 * so `a.res < b.inv` means a finished before b started); `at`/`since`/`expiresAt` are object time.
 */

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
