/**
 * Each shown scope's state, read from its own scope-state object: the authority applies and
 * queued destroys consult, so the page never shows a scope open that a webhook has closed. One
 * unreadable object costs only its own badge.
 */
import type { Env } from "../../shared/env";
import { type ScopeStateView, scopeStateClient } from "../scope-state/scope-state-client";

/** null: the object could not be read. */
export type ScopeStateShown = Omit<ScopeStateView, "scope"> | null;

export async function readScopeStates(
  env: Env,
  scopes: readonly string[],
): Promise<Map<string, ScopeStateShown>> {
  const unique = [...new Set(scopes)];
  const states = await Promise.all(
    unique.map(async (scope): Promise<ScopeStateShown> => {
      try {
        const { status, revision, deliveryId, changedAt } = await scopeStateClient(env, scope).read();
        return { status, revision, deliveryId, changedAt };
      } catch (err) {
        console.warn(`dashboard: scope state of ${scope} unreadable: ${String(err)}`);
        return null;
      }
    }),
  );
  return new Map(unique.map((scope, i) => [scope, states[i] ?? null]));
}

/** The pull_request action that set a state: only `closed` and `reopened` move a scope. */
export function lastEventAction(state: { status: "open" | "closed" }): "closed" | "reopened" {
  return state.status === "closed" ? "closed" : "reopened";
}
