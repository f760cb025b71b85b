/**
 * The Worker's typed view of one scope's state object, `scope-state:<repository id>/<scope>`: a
 * scope belongs to one repository, so two repositories' `pr-5` have two objects. Every environment
 * of a scope shares it: a pull request is closed everywhere at once (docs/design.md, "Webhooks and the
 * sweep").
 *
 * Staleness recheck (docs/design.md, "Staleness recheck") for the engine: `read()` before the scope lease,
 * `read()` again under it, and refuse with CONCURRENT_MODIFICATION when the status or revision changed
 * (workers/engine/rules/staleness.ts decides, workers/engine/run/under-scope.ts reads).
 */
import type { Env } from "../../shared/env";
import { SponsonError, unwrap } from "../../shared/errors";
import { assertRepositoryId, isValidScope } from "../../shared/lock-keys";
import type {
  ApplyOutcome,
  PlatformEvent,
  PlatformHead,
  PlatformOutcome,
  ResendAsk,
  ResendConfirm,
  ResendDecision,
  ScopeEvent,
  ScopeStateView,
  ScopeStatus,
} from "../../shared/rpc/scope-state";
import { rpcStub } from "../../shared/rpc/stub";

export type {
  ApplyOutcome,
  PlatformEvent,
  PlatformHead,
  PlatformOutcome,
  ResendAsk,
  ResendConfirm,
  ResendDecision,
  ScopeEvent,
  ScopeStateView,
  ScopeStatus,
};

export interface ScopeStateClient {
  readonly repositoryId: number;
  readonly scope: string;
  read(): Promise<ScopeStateView>;
  applyEvent(event: ScopeEvent): Promise<ApplyOutcome>;
  markEnqueued(deliveryId: string): Promise<void>;
  unconfirmedClose(): Promise<ScopeEvent | null>;
  claimResend(ask: ResendAsk): Promise<ResendDecision>;
  confirmResend(confirm: ResendConfirm): Promise<void>;
  applyPlatformEvent(event: PlatformEvent): Promise<PlatformOutcome>;
  markPlatformEnqueued(eventId: string): Promise<void>;
  forgetPlatformEvent(eventId: string): Promise<void>;
}

export function scopeStateObjectName(repositoryId: number, scope: string): string {
  assertRepositoryId(repositoryId);
  return `scope-state:${repositoryId}/${scope}`;
}

export function scopeStateClient(env: Env, repositoryId: number, scope: string): ScopeStateClient {
  if (!isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `scope "${scope}" must be pr-<n>, branch-<name> or main`);
  }
  const stub = rpcStub(env.SCOPE_STATE, scopeStateObjectName(repositoryId, scope));
  return {
    repositoryId,
    scope,
    read: () => stub.read({ scope }),
    applyEvent: async (event) => unwrap(await stub.applyEvent({ scope, ...event })),
    markEnqueued: (deliveryId) => stub.markEnqueued({ deliveryId }),
    unconfirmedClose: () => stub.unconfirmedClose({ scope }),
    claimResend: (ask) => stub.claimResend(ask),
    confirmResend: (confirm) => stub.confirmResend(confirm),
    applyPlatformEvent: async (event) => unwrap(await stub.applyPlatformEvent({ scope, ...event })),
    markPlatformEnqueued: (eventId) => stub.markPlatformEnqueued({ eventId }),
    forgetPlatformEvent: (eventId) => stub.forgetPlatformEvent({ eventId }),
  };
}
