/**
 * The provenance a run declares (docs/design.md, "Provenance"): in a GitHub Actions job, from its
 * GITHUB_* variables. The service stores it marked declared for a service token and ignores it for
 * a GitHub OIDC token (the signed claims say the same, proven). Nothing secret is read.
 */
import { type DeclaredProvenance, declaredProvenanceSchema } from "../shared/schemas/provenance";

type Env = Record<string, string | undefined>;

const PULL_REF = /^refs\/pull\/([1-9][0-9]{0,9})\/(?:merge|head)$/;
const NUMERIC = /^[0-9]{1,20}$/;

/** `https://<server>/<repo>/actions/runs/<id>/attempts/<n>`, or undefined (never an http:// one). */
function runUrlOf(env: Env): string | undefined {
  const server = env.GITHUB_SERVER_URL || "https://github.com";
  const { GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: id } = env;
  if (!server.startsWith("https://") || !repository || !id || !NUMERIC.test(id)) return undefined;
  const attempt =
    env.GITHUB_RUN_ATTEMPT && NUMERIC.test(env.GITHUB_RUN_ATTEMPT) ? env.GITHUB_RUN_ATTEMPT : "1";
  return `${server.replace(/\/+$/, "")}/${repository}/actions/runs/${id}/attempts/${attempt}`;
}

/** The job's provenance for a service token's run, each field only if it fits; undefined if none. */
export function provenanceFromEnv(env: Env): DeclaredProvenance | undefined {
  // Only a service token's run declares: with the job's OIDC token the service reads the verified
  // claims, and a service older than provenance would refuse the unknown field.
  if (env.GITHUB_ACTIONS !== "true" || !env.SPONSON_TOKEN) return undefined;
  const ref = env.GITHUB_REF || undefined;
  const pull = ref ? PULL_REF.exec(ref) : null;
  const candidate: Record<string, unknown> = {
    actor: env.GITHUB_ACTOR || undefined,
    ref,
    pullRequest: pull ? Number(pull[1]) : undefined,
    headBranch: env.GITHUB_HEAD_REF || undefined,
    runUrl: runUrlOf(env),
  };
  const shape = declaredProvenanceSchema.shape;
  const fields = Object.entries(candidate).filter(
    ([key, value]) => value !== undefined && shape[key as keyof typeof shape].safeParse(value).success,
  );
  return fields.length === 0 ? undefined : (Object.fromEntries(fields) as DeclaredProvenance);
}
