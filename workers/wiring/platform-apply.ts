/**
 * The engine's part in a queued platform apply (docs/design.md, "The platform door"): the
 * connection's plan, applied to the event's scope under the scope lease, waiting, with the
 * deployment's placeholders and provenance. Under the lease, the scope-state object's heads are
 * read with the staleness recheck, and an apply whose deployment the connection has superseded
 * since is skipped (recorded in the receipt), so an older deployment's apply never runs after a
 * newer one's, however the queue orders them.
 */

import type { Env } from "../../shared/env";
import { ERROR_TABLE, SponsonError } from "../../shared/errors";
import type { QueuedPlatformApply } from "../../shared/schemas/queued-platform-apply";
import type { RunResult } from "../../shared/schemas/run";
import { configFromEnv } from "../config/config";
import type { ScopeSnapshot } from "../engine/rules/staleness";
import { supersededBy } from "../platforms/platform-order";
import type { PlatformConnection } from "../platforms/platform-schema";
import { platformProvenance, platformValuesOf } from "../platforms/platform-values";
import type { PlatformApplyResult, PlatformApplyRunner } from "../queue/platform-apply-consumer";
import { createEngine, type EngineOverrides, type ProviderTransport } from "./wire";

export function enginePlatformApplyRunner(
  transport: ProviderTransport,
  overrides: EngineOverrides = {},
): PlatformApplyRunner {
  return (env, job) => applyDeployment(env, job, () => createEngine(env, transport, overrides));
}

async function applyDeployment(
  env: Env,
  job: QueuedPlatformApply,
  engineFor: () => ReturnType<typeof createEngine>,
): Promise<PlatformApplyResult> {
  const config = configFromEnv(env);
  const connection = config.platforms.find((p) => p.name === job.connection);
  const repository = config.repositories.find((r) => r.id === job.repositoryId);
  const changed = changedSince(job, connection, repository?.name);
  if (changed !== null || connection === undefined || repository === undefined)
    return { outcome: "failed", code: "VALIDATION", detail: changed ?? "the connection is gone" };
  const deployment = { deploymentId: job.deployment.id, createdAt: job.deployment.createdAt };
  const guard = (state: ScopeSnapshot) => {
    const newer = supersededBy(state.platformHeads?.[job.connection], deployment);
    return newer === null
      ? null
      : `superseded: ${job.connection} accepted deployment ${newer.deploymentId} since`;
  };
  let result: RunResult;
  try {
    result = await engineFor().apply(
      {
        repository: { id: repository.id, name: repository.name },
        environment: job.environment,
        scope: job.scope,
        wait: true,
        plan: connection.plan,
        defaultBranch: repository.defaultBranch,
        ...(job.deployment.sha ? { sha: job.deployment.sha } : {}),
        platform: platformValuesOf(job.deployment, connection.url),
        provenance: platformProvenance(job),
      },
      undefined,
      guard,
    );
  } catch (err) {
    // Refused before the run started: only what a retry can change is retried. A pull request
    // closed meanwhile is no failure: its close destroys the scope.
    if (err instanceof SponsonError && err.detail?.scopeStatus === "closed")
      return { outcome: "skipped", detail: `scope ${job.scope} is closed` };
    if (err instanceof SponsonError && !err.retriable)
      return { outcome: "failed", code: err.code, detail: err.message };
    throw err;
  }
  const runId = result.run.id;
  if (result.run.skipped !== undefined) return { outcome: "skipped", detail: result.run.skipped, runId };
  if (result.run.status === "succeeded") return { outcome: "applied", runId };
  const error = result.run.error ?? result.lines.find((l) => l.error !== undefined)?.error;
  const code = error?.code ?? "INTERNAL";
  const retriable = error?.retriable ?? ERROR_TABLE[code as keyof typeof ERROR_TABLE]?.retriable ?? false;
  const detail = `run ${runId} failed: ${error?.message ?? "no error recorded"}`;
  if (retriable) throw new Error(detail);
  return { outcome: "failed", code, detail, runId };
}

/** The event was verified for the connection as it was: one bound elsewhere since is not applied. */
function changedSince(
  job: QueuedPlatformApply,
  connection: PlatformConnection | undefined,
  repositoryName: string | undefined,
): string | null {
  if (connection === undefined) return `platform connection ${job.connection} is no longer configured`;
  const target = connection.platform === "vercel" ? connection.project : connection.site;
  if (
    connection.platform !== job.platform ||
    target !== job.target ||
    connection.environment !== job.environment ||
    repositoryName === undefined ||
    connection.repository.toLowerCase() !== repositoryName.toLowerCase()
  )
    return `platform connection ${job.connection} changed since the event: it no longer binds this deployment to ${job.environment}/${job.scope}`;
  return null;
}
