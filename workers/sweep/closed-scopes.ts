/**
 * Scopes whose pull request is closed but whose ledger still owns entries: a destroy that never
 * ran (a lost enqueue, a parked dead letter) or failed. Reported, not acted on: the dead-letter
 * re-drive and a redelivered webhook are the paths that act.
 */
import type { Env } from "../../shared/env";
import { scopeStateClient } from "../scope-state/scope-state-client";

export interface ScopeRef {
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
    // One read per scope name: its state object is shared by every environment.
    let state = states.get(ref.scope);
    if (state === undefined) {
      state = scopeStateClient(env, ref.scope).read();
      states.set(ref.scope, state);
    }
    const { status, revision } = await state;
    if (status === "closed") found.push({ ...ref, revision });
  }
  return found;
}
