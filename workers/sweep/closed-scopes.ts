/**
 * Scopes whose pull request is closed but whose ledger still owns entries: a destroy that never
 * ran (a lost enqueue, a parked dead letter) or failed. Reported, not acted on: the dead-letter
 * re-drive and a redelivered webhook are the paths that act.
 */
import type { Env } from "../../shared/env";
import { scopeStateClient } from "../scope-state/scope-state-client";

export interface ScopeRef {
  repositoryId: number;
  environment: string;
  scope: string;
}

export interface ClosedScopeWithEntries extends ScopeRef {
  revision: number;
}

export async function closedScopesWithEntries(
  env: Env,
  owning: ScopeRef[],
): Promise<ClosedScopeWithEntries[]> {
  const states = new Map<string, Promise<{ status: string; revision: number }>>();
  const found: ClosedScopeWithEntries[] = [];
  for (const ref of owning) {
    // One read per repository's scope: its state object is shared by every environment.
    const name = `${ref.repositoryId}/${ref.scope}`;
    let state = states.get(name);
    if (state === undefined) {
      state = scopeStateClient(env, ref.repositoryId, ref.scope).read();
      states.set(name, state);
    }
    const { status, revision } = await state;
    if (status === "closed") found.push({ ...ref, revision });
  }
  return found;
}
