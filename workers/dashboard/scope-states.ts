/**
 * Each shown scope's state, read from its own scope-state object: the authority applies and
 * queued destroys consult, so the page never shows a scope open that a webhook has closed. One
 * unreadable object costs only its own badge.
 */
import type { Env } from "../../shared/env";
import { type ScopeStateView, scopeStateClient } from "../scope-state/scope-state-client";

/** null: the object could not be read. */
export type ScopeStateShown = Omit<ScopeStateView, "scope"> | null;

/** Scope states are kept per repository: `pr-5` of two repositories are two scopes. */
export function scopeStateKey(repositoryId: number, scope: string): string {
  return `${repositoryId}/${scope}`;
}

export async function readScopeStates(
  env: Env,
  scopes: ReadonlyArray<{ repositoryId: number; scope: string }>,
): Promise<Map<string, ScopeStateShown>> {
  const unique = [...new Map(scopes.map((s) => [scopeStateKey(s.repositoryId, s.scope), s])).values()];
  const states = await Promise.all(
    unique.map(async ({ repositoryId, scope }): Promise<ScopeStateShown> => {
      try {
        const state = await scopeStateClient(env, repositoryId, scope).read();
        const { status, revision, deliveryId, changedAt } = state;
        return { status, revision, deliveryId, changedAt };
      } catch (err) {
        console.warn(`dashboard: scope state of ${repositoryId}/${scope} unreadable: ${String(err)}`);
        return null;
      }
    }),
  );
  return new Map(unique.map((s, i) => [scopeStateKey(s.repositoryId, s.scope), states[i] ?? null]));
}

/** The pull_request action that set a state: only `closed` and `reopened` move a scope. */
export function lastEventAction(state: { status: "open" | "closed" }): "closed" | "reopened" {
  return state.status === "closed" ? "closed" : "reopened";
}
