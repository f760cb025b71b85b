/**
 * One answer for every line the write policy refuses (docs/design.md, "Write policy"): a plan is
 * checked in full before any lease, so the author fixes every refused line at once instead of one
 * per attempt. Still FORBIDDEN (403); the first refusal's own detail (rule, op, identity, item)
 * stays at the top for clients that read it, and `refused` lists them all.
 */
import { SponsonError } from "../../shared/errors";

export interface RefusedLine {
  line: string;
  op: string;
  item: string;
  rule: string;
}

/** A line's refusal: the plan line it came from, and the policy's FORBIDDEN. */
export interface LineRefusal {
  line: string;
  error: SponsonError;
}

export function isPolicyRefusal(err: unknown): err is SponsonError {
  return err instanceof SponsonError && err.code === "FORBIDDEN";
}

export function refusedLines(refusals: readonly LineRefusal[]): SponsonError {
  const refused: RefusedLine[] = refusals.map(({ line, error }) => ({
    line,
    op: String(error.detail?.op ?? ""),
    item: String(error.detail?.item ?? ""),
    rule: String(error.detail?.rule ?? ""),
  }));
  const named = refusals.map(
    ({ line, error }, i) => `line "${line}" (${refused[i]?.op} ${refused[i]?.item}): ${error.message}`,
  );
  const message =
    refusals.length === 1
      ? `the write policy refuses ${named[0]}`
      : `the write policy refuses ${refusals.length} plan lines: ${named.join("; ")}`;
  return new SponsonError("FORBIDDEN", message, { ...(refusals[0]?.error.detail ?? {}), refused });
}
