/**
 * The engine's part in the Worker's background entries: the queued destroy of a closed pull
 * request (docs/design.md, "Webhooks and the sweep") and the sweep's intent recovery and "owns entries"
 * listing, and the upgrade pass until 0.4.0 (workers/upgrade/).
 */
import type { Env } from "../../shared/env";
import { repositoryRefById } from "../../shared/schemas/repository";
import { configFromEnv } from "../config/config";
import type { ScopeSnapshot } from "../engine/rules/staleness";
import { destroyDecision } from "../queue/destroy-decision";
import type { DestroyResult, DestroyRunner, QueuedDestroy } from "../queue/queued-destroy";
import { configuredReceiptStore } from "../receipts/configured-store";
import { resolveStaleIntents as resolveIntents } from "../sweep/stale-intents";
import type { SweepParts } from "../sweep/sweep";
import { runUpgrade } from "../upgrade/upgrade";
import { upgradeDeps } from "../upgrade/upgrade-deps";
import { createEngine, type ProviderTransport, redactingErrorLog } from "./wire";

/** The queue's destroy runner, on the provider transport of the entry that wires it. */
export function engineDestroyRunner(transport: ProviderTransport): DestroyRunner {
  return (env, job) => destroyClosedScope(env, job, transport);
}

/**
 * Runs under the scope lease and re-checks, there, that the scope is still closed at (or after)
 * the revision that asked for the destroy; a reopened scope is skipped and the skip recorded.
 */
async function destroyClosedScope(
  env: Env,
  job: QueuedDestroy,
  transport: ProviderTransport,
): Promise<DestroyResult> {
  const engine = createEngine(env, transport);
  // The id decides; the name is for the receipt (the configured one, else the one the close carried).
  const configured = repositoryRefById(job.repositoryId, configFromEnv(env).repositories);
  const repository =
    configured.name.startsWith("#") && job.repositoryName
      ? { ...configured, name: job.repositoryName }
      : configured;
  const guard = (state: ScopeSnapshot) => {
    const decision = destroyDecision({ ...state, scope: job.scope, deliveryId: null, changedAt: 0 }, job);
    return decision.proceed ? null : `${decision.skip.outcome}: ${decision.skip.detail ?? ""}`;
  };
  const result = await engine.destroy(
    { repository, environment: job.environment, scope: job.scope, wait: true },
    undefined,
    guard,
  );
  if (result.run.skipped) {
    const outcome = result.run.skipped.startsWith("skipped-stale") ? "skipped-stale" : "skipped-reopened";
    return { outcome, detail: result.run.skipped };
  }
  // A destroy that could not remove everything is retried by the queue, then parked in the DLQ.
  if (result.run.status === "failed")
    throw new Error(`destroy of ${job.environment}/${job.scope} failed: ${result.run.error?.message ?? ""}`);
  return { outcome: "destroyed", detail: `run ${result.run.id}` };
}

/** The sweep's engine parts, on the provider transport of the entry that wires them. */
export function engineSweepParts(transport: ProviderTransport): SweepParts {
  return {
    // Upgrading only (docs/upgrading.md): deleted in 0.4.0 with workers/upgrade/.
    upgrade: (env) => runUpgrade(upgradeDeps(env)),
    resolveStaleIntents: (env, options) => resolveStaleIntents(env, options, transport),
    scopesOwningEntries,
    orphans: (env) => createEngine(env, transport).orphans(),
  };
}

function resolveStaleIntents(
  env: Env,
  { olderThan }: { olderThan: number },
  transport: ProviderTransport,
): Promise<{ resolved: number; detail?: string }> {
  const repositories = configFromEnv(env).repositories;
  const engine = createEngine(env, transport);
  return resolveIntents(
    {
      store: configuredReceiptStore(env),
      repository: (id) => repositoryRefById(id, repositories),
      recover: (address) => engine.recover(address),
      logError: redactingErrorLog(env),
    },
    { olderThan },
  );
}

async function scopesOwningEntries(env: Env) {
  const scopes = await configuredReceiptStore(env).listScopes();
  return scopes
    .filter((s) => s.entries > 0)
    .map(({ repositoryId, environment, scope }) => ({ repositoryId, environment, scope }));
}
