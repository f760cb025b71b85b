/**
 * Parked destroys the sweep will never re-drive, moved out of the way (docs/storage.md, "Dead
 * letters"; docs/operations.md, "Dead letters set aside"): each is kept in the audit trail with
 * where it was parked and why, so an operator sees it (GET /v1/audit, the dashboard) and it never
 * stands in front of a letter the sweep will re-drive.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";

export const SET_ASIDE_PREFIX = "audit/dead-letters/";

/** How much of a letter that was not JSON is kept: enough to tell what it was. */
export const SET_ASIDE_RAW_MAX = 4096;

export const SET_ASIDE_REASONS = [
  /** Not JSON, not a parked letter, or its body not a destroy (docs/storage.md, "Dead letters"). */
  "unparseable",
  /** Its repository id is not in SPONSON_REPOSITORIES any more. */
  "repository-not-configured",
  /** Its environment is not in SPONSON_ENVIRONMENTS any more: closes no longer destroy there. */
  "environment-not-configured",
  /** Re-driven MAX_REDRIVES times already, and it failed every time. */
  "redrives-exhausted",
  /** Parked longer than DEAD_LETTER_MAX_AGE_MS without a sweep re-driving it. */
  "too-old",
] as const;
export type SetAsideReason = (typeof SET_ASIDE_REASONS)[number];

export const setAsideLetterSchema = z.object({
  /** Where it was parked: `dead-letters/<message id>.json`. */
  key: z.string(),
  reason: z.enum(SET_ASIDE_REASONS),
  /** What the reason found, for a person (the failing field, the missing repository…). */
  detail: z.string(),
  /** The destroy's scope, when its body could be read. */
  repositoryId: z.int().optional(),
  environment: z.string().optional(),
  scope: z.string().optional(),
  /** The parked letter as it was stored (`{ messageId, body, attempts, deadAt }`), when it was JSON. */
  letter: z.unknown().optional(),
  /** Its first SET_ASIDE_RAW_MAX characters, when it was not JSON. */
  raw: z.string().optional(),
  actor: z.literal("sweep"),
  /** The sweep's scheduled time (ms). */
  at: z.int(),
});
export type SetAsideLetter = z.infer<typeof setAsideLetterSchema>;

/**
 * Keyed by when the letter was parked (R2's upload time) and its own name, so a sweep that dies
 * between this put and the delete of the parked letter writes the same record again, not a second.
 */
export function setAsideKey(parkedKey: string, parkedAt: number, parkedPrefix: string): string {
  const name = parkedKey.slice(parkedPrefix.length).replaceAll("/", "%2F");
  return `${SET_ASIDE_PREFIX}${parkedAt}-${name}`;
}

export async function recordSetAside(env: Env, to: string, record: SetAsideLetter): Promise<void> {
  await env.RECEIPTS.put(to, JSON.stringify(record), { httpMetadata: { contentType: "application/json" } });
}
