/**
 * A close asks for a destroy of its scope in every configured environment: one message each, sent
 * in one batch, then confirmed to the scope-state object so a replayed delivery does not re-send.
 */
import type { Env } from "../../shared/env";
import type { RepositoryRef } from "../../shared/schemas/repository";
import { configFromEnv } from "../config/config";
import type { QueuedDestroy } from "../queue/queued-destroy";
import type { ScopeEvent, ScopeStateClient } from "../scope-state/scope-state-client";

export async function enqueueDestroys(
  env: Env,
  repository: RepositoryRef,
  client: ScopeStateClient,
  event: ScopeEvent,
): Promise<number> {
  const jobs: QueuedDestroy[] = configFromEnv(env).environments.map((environment) => ({
    repositoryId: repository.id,
    repositoryName: repository.name,
    environment,
    scope: client.scope,
    revision: event.revision,
    deliveryId: event.deliveryId,
  }));
  await env.DESTROY_QUEUE.sendBatch(jobs.map((body) => ({ body, contentType: "json" as const })));
  await client.markEnqueued(event.deliveryId);
  return jobs.length;
}
