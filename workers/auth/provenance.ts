/**
 * A run's provenance (docs/design.md, "Provenance"): a GitHub job's from its verified claims, and
 * nothing the request says; a service token's from what the request declares, marked declared.
 */
import {
  type DeclaredProvenance,
  declaredProvenance,
  type Provenance,
  provenanceSchema,
  unknownProvenance,
} from "../../shared/schemas/provenance";
import type { Caller } from "./caller";
import type { GithubClaims } from "./github-claims";

const PULL_REF = /^refs\/pull\/([1-9][0-9]{0,9})\/(?:merge|head)$/;
const NUMERIC = /^[0-9]{1,20}$/;

/** One claim, if it fits its field (a claim too long or malformed is left out, never refused). */
function field<K extends keyof Provenance>(key: K, value: unknown): Provenance[K] | null {
  const parsed = provenanceSchema.shape[key].safeParse(value);
  return parsed.success ? (parsed.data as Provenance[K]) : null;
}

export function githubProvenance(claims: GithubClaims): Provenance {
  const pull = PULL_REF.exec(claims.ref);
  const runUrl =
    claims.run_id && NUMERIC.test(claims.run_id)
      ? `https://github.com/${claims.repository}/actions/runs/${claims.run_id}/attempts/${
          claims.run_attempt && NUMERIC.test(claims.run_attempt) ? claims.run_attempt : "1"
        }`
      : null;
  return {
    ...unknownProvenance(false),
    repository: field("repository", claims.repository),
    event: field("event", claims.event_name),
    ref: field("ref", claims.ref),
    pullRequest: pull ? field("pullRequest", Number(pull[1])) : null,
    headBranch: field("headBranch", claims.head_ref || null),
    sha: field("sha", claims.sha),
    actor: field("actor", claims.actor),
    workflow: field("workflow", claims.workflow),
    runUrl: field("runUrl", runUrl),
  };
}

/** The provenance a run of `caller` records: the body's `provenance` only counts for service tokens. */
export function provenanceFor(
  caller: Caller,
  declared: DeclaredProvenance | undefined,
  repository: string,
): Provenance {
  if (caller.kind === "github") return caller.provenance ?? { ...unknownProvenance(false), repository };
  return declaredProvenance(declared, repository);
}
