/**
 * What a queued platform apply hands the engine besides its plan (docs/design.md, "The platform
 * door"): the platform placeholders' values, from the deployment the receiver verified, and the
 * run's provenance, so every lock it takes names the pull request and the deployment.
 */
import type { PlatformValues } from "../../shared/placeholders";
import { type Provenance, unknownProvenance } from "../../shared/schemas/provenance";
import type { PlatformDeployment, QueuedPlatformApply } from "../../shared/schemas/queued-platform-apply";

const hostOf = (url: string) => new URL(url).host;

/** `{previewUrl}` is the stable branch alias unless the connection asks for each deployment's own URL. */
export function platformValuesOf(
  deployment: PlatformDeployment,
  url: "branch" | "deployment",
): PlatformValues {
  const values: PlatformValues = { deploymentUrl: deployment.url, deploymentHost: hostOf(deployment.url) };
  if (deployment.branchUrl !== undefined) {
    values.branchUrl = deployment.branchUrl;
    values.branchHost = hostOf(deployment.branchUrl);
  }
  const preview = url === "deployment" ? deployment.url : deployment.branchUrl;
  if (preview !== undefined) {
    values.previewUrl = preview;
    values.previewHost = hostOf(preview);
  }
  return values;
}

export function platformProvenance(job: QueuedPlatformApply): Provenance {
  const { deployment } = job;
  return {
    ...unknownProvenance(false),
    repository: job.repositoryName,
    event: `${job.platform}.deployment`,
    ref: deployment.branch === null ? null : `refs/heads/${deployment.branch}`.slice(0, 200),
    pullRequest: deployment.pullRequest,
    headBranch: deployment.branch === null ? null : deployment.branch.slice(0, 200),
    sha: deployment.sha,
    runUrl: deployment.link ?? null,
    platform: {
      kind: job.platform,
      connection: job.connection,
      target: job.target,
      deployment: deployment.id,
      url: deployment.url,
    },
  };
}
