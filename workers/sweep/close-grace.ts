/**
 * How long the sweep leaves a closed scope's confirmed destroys to the queue before it re-sends
 * them, and how many times it re-sends (docs/design.md, "Webhooks and the sweep"; docs/operations.md).
 *
 * The default outlasts the destroy queue's retry window (wrangler.toml: max_retries = 5, backoff 30 s
 * doubling: 30 + 60 + 120 + 240 + 480 = 930 s, plus up to six waits of WAIT_TIMEOUT_SECONDS = 120 s
 * for a held scope lease: about 28 min), so a destroy that is merely slow is never sent twice.
 */
import { misconfigured, positiveSeconds, type Vars } from "../config/config-vars";

export const DEFAULT_CLOSE_GRACE_SECONDS = 3600;
export const DEFAULT_CLOSE_MAX_RESENDS = 3;
/** A scope still owning entries this long after its close is reported (notification `scope-lingering`). */
export const LINGERING_AFTER_MS = 24 * 60 * 60 * 1000;

export interface CloseGrace {
  graceMs: number;
  maxResends: number;
  lingerMs: number;
}

/** Throws the misconfiguration naming the var (the sweep reports that part failed). */
export function closeGraceFromEnv(env: object): CloseGrace {
  const vars = env as Vars;
  return {
    graceMs: positiveSeconds(vars, "SPONSON_CLOSE_GRACE_SECONDS", DEFAULT_CLOSE_GRACE_SECONDS) * 1000,
    maxResends: count(vars, "SPONSON_CLOSE_MAX_RESENDS", DEFAULT_CLOSE_MAX_RESENDS),
    lingerMs: LINGERING_AFTER_MS,
  };
}

function count(vars: Vars, name: string, fallback: number): number {
  const raw = vars[name];
  if (raw === undefined || raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 100)
    throw misconfigured(`${name} must be a whole number from 0 to 100`);
  return n;
}
