/**
 * Adopting existing entries (docs/design.md, "Adopting existing entries"; `POST /v1/adopt`, `sponson
 * adopt`): the entries already on one list of one provider object, matched to the pull requests
 * that want them by patterns, shown (a dry run, the default) or recorded as those scopes' own.
 */
import { z } from "zod";
import { MAX_PATTERN_LENGTH, MAX_PATTERNS } from "../adoption-patterns";
import { MAX_WAIT_TIMEOUT_SECONDS } from "./requests";

const nameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

export const adoptionBodySchema = z.strictObject({
  /** The environment whose scopes adopt (`pr-<n>` of this environment), and whose policy admits. */
  environment: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/),
  /** A connection of the service's configuration, allowed in the environment. */
  connection: nameSchema,
  /** The op whose list is read, e.g. `auth0.callbackUrl`. */
  op: z.string().regex(/^[a-z0-9]+\.[A-Za-z0-9]+$/),
  /** The object's params, as a plan line gives them, without the item (e.g. `{ client }`). */
  params: z.record(z.string().max(64), z.string().max(2_000)).default({}),
  /** e.g. `https://pr-{pr}.preview.example.com`; one match makes an entry that pull request's. */
  patterns: z.array(z.string().min(1).max(MAX_PATTERN_LENGTH)).min(1).max(MAX_PATTERNS),
  /** Record the adoptions; without it nothing is written (a dry run). */
  apply: z.boolean().default(false),
  /** Also remove closed pull requests' entries (needs `github`), the way their close would have. */
  removeClosed: z.boolean().default(false),
  /**
   * A GitHub token that can read the repository's pull requests, used for this request only:
   * never stored, never logged, never in an answer. Without it pull requests are not asked about.
   */
  github: z.strictObject({ token: z.string().min(1).max(1_000) }).optional(),
  /** How long each scope lease and the object's lease are waited for (default the service's). */
  waitTimeoutSeconds: z.number().int().min(0).max(MAX_WAIT_TIMEOUT_SECONDS).optional(),
});
export type AdoptionBody = z.infer<typeof adoptionBodySchema>;

export const pullRequestStateSchema = z.enum([
  "open",
  "closed",
  /** GitHub has no such pull request. */
  "missing",
  /** Not asked: no GitHub token in the request. */
  "unknown",
]);

export const ADOPTION_OUTCOMES = [
  "would-adopt",
  "would-remove",
  "adopted",
  /** Adopted, then removed through the scope's removal: its pull request is closed. */
  "removed",
  /** Adopted, then let go at its removal: another scope owns it since; the entry stays. */
  "released",
  /** Left as it is: `reason` says why. */
  "kept",
  "failed",
] as const;
export const adoptionOutcomeSchema = z.enum(ADOPTION_OUTCOMES);
export type AdoptionOutcome = z.infer<typeof adoptionOutcomeSchema>;

export const adoptionReasonSchema = z.enum([
  "no-match",
  /** Two patterns claim it: it stays foreign. */
  "ambiguous",
  "pull-request-closed",
  "no-pull-request",
  /** The environment's write policy (or the URL shape check) does not admit it. */
  "policy",
  "owned-by-another-scope",
  "already-owned",
  /** Gone from the list when read under the object's lease. */
  "absent",
  /** The service knows the scope closed: its close is handled, so nothing may be adopted into it. */
  "scope-closed",
]);
export type AdoptionReason = z.infer<typeof adoptionReasonSchema>;

export const adoptionEntrySchema = z.object({
  key: z.string(),
  /**
   * The scope a pattern gives it (`pr-<n>`); for `already-owned`, the scope that owns it (null when
   * several do, or one of another repository or environment); null when no pattern, or several, claim it.
   */
  scope: z.string().nullable(),
  pullRequest: z.object({ number: z.number().int(), state: pullRequestStateSchema }).nullable(),
  /** The patterns that matched it (several: ambiguous). */
  patterns: z.array(z.string()),
  /** Whether it was foreign when read (there before any scope claimed it). */
  foreign: z.boolean(),
  /** How many scopes owned it when read. */
  owners: z.number().int().nonnegative(),
  outcome: adoptionOutcomeSchema,
  reason: adoptionReasonSchema.optional(),
  /** The rule that refused it (`reason: "policy"`). */
  rule: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type AdoptionEntry = z.infer<typeof adoptionEntrySchema>;

export const adoptionResultSchema = z.object({
  /** The id every lease of the adoption was held by; ledger entries it adds name it (`runId`). */
  runId: z.string(),
  dryRun: z.boolean(),
  repository: z.object({ id: z.number().int(), name: z.string() }),
  environment: z.string(),
  connection: z.string(),
  op: z.string(),
  /** The object's identity (its parent lock). */
  parent: z.string(),
  entries: z.array(adoptionEntrySchema),
  counts: z.record(adoptionOutcomeSchema, z.number().int().nonnegative()),
  warnings: z.array(z.string()),
});
export type AdoptionResult = z.infer<typeof adoptionResultSchema>;
