/**
 * The runner used until the engine plugs in its own: it re-checks the scope state and reports
 * what the destroy would do, without touching any provider. It says so in `detail`, so a receipt
 * or log never mistakes it for a real destroy.
 */
import { scopeStateClient } from "../scope-state/scope-state-client";
import { destroyDecision } from "./destroy-decision";
import type { DestroyRunner } from "./queued-destroy";

export const checkOnlyDestroyRunner: DestroyRunner = async (env, job) => {
  const state = await scopeStateClient(env, job.repositoryId, job.scope).read();
  const decision = destroyDecision(state, job);
  if (!decision.proceed) return decision.skip;
  return {
    outcome: "destroyed",
    detail: `no destroy runner registered: ${job.environment}/${job.scope} is closed at ${state.revision}`,
  };
};
