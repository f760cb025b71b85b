/** Display formatting for the dashboard; pure, `now` passed in. Times are UTC, like the API's. */

/** "1h 02m", "4m 05s", "12s"; negative durations read as "0s". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/** "12s ago", "3m 04s ago". */
export function formatAgo(at: number, now: number): string {
  return `${formatDuration(now - at)} ago`;
}

/** "2026-11-17 09:41:05 UTC". */
export function formatUtc(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "87 ms", "1.4 s"; longer runs as formatDuration. For a run's timings. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return formatDuration(ms);
}
