/**
 * Where a run comes from (docs/design.md, "Provenance"): the repository, the event, the ref, the pull
 * request, the head branch, the commit, the actor, the workflow and the CI run's URL. From a GitHub
 * OIDC token's verified claims, or, for service tokens, what the request declares (`declared: true`).
 * Never a secret: every field is something GitHub shows on the run's own page.
 */
import { z } from "zod";
import { SHA_PATTERN } from "../placeholders";

const MAX_TEXT = 200;
const MAX_URL = 500;

/**
 * One line of text: a control character (a line break above all) would let a declared value start a
 * GitHub workflow command (`::add-mask::`) in the CI log of every run told who holds its lock.
 */
const text = z
  .string()
  .min(1)
  .max(MAX_TEXT)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f]*$/, "one line, no control characters");
const httpsUrl = z
  .string()
  .max(MAX_URL)
  .regex(/^https:\/\/[^\s]+$/, "an https:// URL");
const pullRequest = z.number().int().positive().max(9_999_999_999);

/**
 * A run a platform's deploy event started (docs/design.md, "The platform door"): which platform,
 * connection, project (or site) and deployment, and the deployment's URL. Vouched for by the
 * platform's signature (and, for Vercel, its API), not declared by a caller.
 */
export const platformOriginSchema = z.object({
  kind: z.enum(["vercel", "netlify"]),
  connection: text,
  /** The Vercel project id or the Netlify site id. */
  target: text,
  deployment: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/),
  url: httpsUrl,
});
export type PlatformOrigin = z.infer<typeof platformOriginSchema>;

export const PLATFORM_NAMES = { vercel: "Vercel", netlify: "Netlify" } as const;

export const provenanceSchema = z.object({
  /** `owner/name` as the caller named it (GitHub's `repository` claim). */
  repository: text.nullable(),
  /** GitHub's `event_name`, e.g. `pull_request`. */
  event: text.nullable(),
  ref: text.nullable(),
  pullRequest: pullRequest.nullable(),
  headBranch: text.nullable(),
  sha: z.string().regex(SHA_PATTERN).nullable(),
  actor: text.nullable(),
  workflow: text.nullable(),
  /** `https://github.com/<repo>/actions/runs/<run_id>/attempts/<n>` for GitHub callers. */
  runUrl: httpsUrl.nullable(),
  /** Said by the request (a service token), not proven by a signed token. */
  declared: z.boolean(),
  /** A platform door's run: the deployment it applies (absent for every other run). */
  platform: platformOriginSchema.optional(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

/** What a service-token request may declare (the CLI fills it from GITHUB_* variables). */
export const declaredProvenanceSchema = z.strictObject({
  actor: text.optional(),
  pullRequest: pullRequest.optional(),
  headBranch: text.optional(),
  sha: z.string().regex(SHA_PATTERN, "a full lowercase commit id (40 or 64 hex)").optional(),
  ref: text.optional(),
  runUrl: httpsUrl.optional(),
});
export type DeclaredProvenance = z.infer<typeof declaredProvenanceSchema>;

/** A run that says nothing about where it comes from (a service token without `provenance`, the sweep). */
export function unknownProvenance(declared: boolean): Provenance {
  return {
    repository: null,
    event: null,
    ref: null,
    pullRequest: null,
    headBranch: null,
    sha: null,
    actor: null,
    workflow: null,
    runUrl: null,
    declared,
  };
}

/** A service token's declaration, stored as declared. */
export function declaredProvenance(body: DeclaredProvenance | undefined, repository: string): Provenance {
  return {
    ...unknownProvenance(true),
    repository,
    ref: body?.ref ?? null,
    pullRequest: body?.pullRequest ?? null,
    headBranch: body?.headBranch ?? null,
    sha: body?.sha ?? null,
    actor: body?.actor ?? null,
    runUrl: body?.runUrl ?? null,
  };
}

/**
 * The run that holds or waits on a lock, as lock answers name it (docs/design.md, "Lock answers"):
 * stored with the lease (or the waiter) when the run asks for it.
 */
export const runOriginSchema = z.object({
  /** The repository's id: whom the run belongs to, for repository isolation. */
  repositoryId: z.number().int(),
  repository: text,
  /** `<environment>/<scope>`. */
  scope: text,
  provenance: provenanceSchema,
});
export type RunOrigin = z.infer<typeof runOriginSchema>;

/** Shown instead of another repository's run (docs/security.md, "Repository isolation"). */
export const OTHER_REPOSITORY_RUN = "(another repository's run)";

/** Who a lock's run is, as a person reads it: nothing of its provenance for another repository. */
export const runHolderSchema = z.object({
  run: z.string(),
  repository: z.string().nullable(),
  scope: z.string().nullable(),
  pullRequest: z.number().int().nullable(),
  actor: z.string().nullable(),
  runUrl: z.string().nullable(),
  declared: z.boolean(),
  /** A platform door's run: which platform and deployment (absent otherwise, and for another repository's). */
  platform: z.object({ kind: z.enum(["vercel", "netlify"]), deployment: z.string() }).optional(),
});
export type RunHolder = z.infer<typeof runHolderSchema>;

/** A lease's holder: the run, since when and until when it holds the lease. */
export const leaseHolderSchema = runHolderSchema.extend({
  since: z.number().int(),
  expiresAt: z.number().int(),
});
export type LeaseHolder = z.infer<typeof leaseHolderSchema>;

/**
 * `detail.holder` of LOCK_HELD: a run's lease, or a hold an admin set (`{ hold: … }`, docs/design.md,
 * "Lock answers"): told apart by `hold`.
 */
export const holdHolderSchema = z.object({
  hold: z.object({ reason: z.string(), by: z.string(), until: z.number().int() }),
});
export const lockHolderSchema = z.union([leaseHolderSchema, holdHolderSchema]);
export type LockHolder = z.infer<typeof lockHolderSchema>;

/**
 * The holder `viewer` (a repository id; null: a caller who may see every repository) may see of the
 * run `origin` describes. A run whose origin is unknown (a lease taken before provenance was kept,
 * gone within one TTL of the upgrade) is named by its id alone.
 */
export function runHolderFor(run: string, origin: RunOrigin | null, viewer: number | null): RunHolder {
  const hidden = viewer !== null && origin !== null && origin.repositoryId !== viewer;
  if (hidden || origin === null) {
    return {
      run: hidden ? OTHER_REPOSITORY_RUN : run,
      repository: null,
      scope: null,
      pullRequest: null,
      actor: null,
      runUrl: null,
      declared: false,
    };
  }
  const p = origin.provenance;
  return {
    run,
    repository: origin.repository,
    scope: origin.scope,
    pullRequest: p.pullRequest,
    actor: p.actor,
    runUrl: p.runUrl,
    declared: p.declared,
    ...(p.platform ? { platform: { kind: p.platform.kind, deployment: p.platform.deployment } } : {}),
  };
}

/**
 * "pull #9 (octocat)", "pull #9, Vercel deployment dpl_…", "run-… (octocat)", "(another
 * repository's run)": who, in a few words.
 */
export function holderWords(holder: RunHolder): string {
  const pull = holder.pullRequest !== null ? `pull #${holder.pullRequest}` : holder.run;
  const platform = holder.platform;
  const who = platform ? `${pull}, ${PLATFORM_NAMES[platform.kind]} deployment ${platform.deployment}` : pull;
  const by = [holder.actor, holder.declared ? "declared" : null].filter(Boolean).join(", ");
  return by ? `${who} (${by})` : who;
}
