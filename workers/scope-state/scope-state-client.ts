/**
 * The Worker's typed view of one scope's state object, `scope-state:<repository id>/<scope>`: a
 * scope belongs to one repository, so two repositories' `pr-5` have two objects. Every environment
 * of a scope shares it: a pull request is closed everywhere at once (docs/design.md, "Webhooks and the
 * sweep").
 *
 * Staleness recheck (docs/design.md, "Staleness recheck") for the engine: `read()` before the scope lease,
 * `read()` again under it, and refuse with CONCURRENT_MODIFICATION when `scopeChanged(before, after)`.
 */
import type { ScopeStatus } from "../../durable-objects/scope-state-rules";
import type { ApplyOutcome, ScopeEvent, ScopeStateView } from "../../durable-objects/scope-state-types";
import type { Env } from "../../shared/env";
import { type Result, SponsonError, unwrap } from "../../shared/errors";
import { assertRepositoryId, isValidScope } from "../../shared/lock-keys";

export type { ApplyOutcome, ScopeEvent, ScopeStateView, ScopeStatus };

export interface ScopeStateClient {
  readonly repositoryId: number;
  readonly scope: string;
  read(): Promise<ScopeStateView>;
  applyEvent(event: ScopeEvent): Promise<ApplyOutcome>;
  markEnqueued(deliveryId: string): Promise<void>;
}

/** The RPC surface with its declared result types (RPC typing flattens the unions otherwise). */
interface ScopeStateApi {
  read(req: { scope: string }): Promise<ScopeStateView>;
  applyEvent(req: { scope: string } & ScopeEvent): Promise<Result<ApplyOutcome>>;
  markEnqueued(req: { deliveryId: string }): Promise<void>;
}

export function scopeStateObjectName(repositoryId: number, scope: string): string {
  assertRepositoryId(repositoryId);
  return `scope-state:${repositoryId}/${scope}`;
}

export function scopeStateClient(env: Env, repositoryId: number, scope: string): ScopeStateClient {
  if (!isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `scope "${scope}" must be pr-<n>, branch-<name> or main`);
  }
  const ns = env.SCOPE_STATE;
  const stub = ns.get(ns.idFromName(scopeStateObjectName(repositoryId, scope))) as unknown as ScopeStateApi;
  return {
    repositoryId,
    scope,
    read: () => stub.read({ scope }),
    applyEvent: async (event) => unwrap(await stub.applyEvent({ scope, ...event })),
    markEnqueued: (deliveryId) => stub.markEnqueued({ deliveryId }),
  };
}

/**
 * True when the scope moved between two reads: the run must not write (docs/design.md, "Staleness recheck").
 */
export function scopeChanged(before: ScopeStateView, after: ScopeStateView): boolean {
  return before.revision !== after.revision || before.status !== after.status;
}
