/**
 * A destroy runner for the queue's own tests: it re-checks the scope state and reports what the
 * destroy would do, without touching any provider (the real one is the engine's, tested in
 * test/queue/engine-destroy.test.ts and the webhook journeys). Never wired in production.
 */
import { destroyDecision } from "../../workers/queue/destroy-decision";
import type { DestroyRunner } from "../../workers/queue/queued-destroy";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";

export const checkOnlyDestroyRunner: DestroyRunner = async (env, job) => {
  const state = await scopeStateClient(env, job.repositoryId, job.scope).read();
  const decision = destroyDecision(state, job);
  if (!decision.proceed) return decision.skip;
  return {
    outcome: "destroyed",
    detail: `no destroy runner registered: ${job.environment}/${job.scope} is closed at ${state.revision}`,
  };
};
