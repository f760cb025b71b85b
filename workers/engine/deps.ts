/** Everything the engine depends on, wired in one place (workers/wiring/wire.ts). */

import type { Clock } from "../../shared/clock";
import type { EvictionAudit } from "../../shared/schemas/eviction";
import type { OwnershipRecord } from "../../shared/schemas/ownership";
import type { RunEvent } from "../../shared/schemas/run";
import type { SecretRegistry } from "../../shared/secrets";
import type { UrlChecks } from "../../shared/url-shape";
import type { SharedBudgets } from "../adapters/http/provider-budget";
import type { SharedTokens } from "../adapters/http/shared-tokens";
import type { IsolateTokenCache } from "../adapters/http/token-cache";
import type { OrphanRemovalAudit } from "../audit/orphan-audit";
import type { Connections } from "../connections/connections";
import type { LockTarget } from "../locks/lock-target";
import type { ReceiptStore } from "../receipts/receipt-store";
import type { EngineControls } from "./controls";
import type { OpRegistry } from "./plan/op-registry";
import type { ScopeSnapshot } from "./rules/staleness";

export interface LockProvider {
  /** The scope lock `scope:<repository id>/<environment>/<scope>`. */
  scope(repositoryId: number, environment: string, scope: string): LockTarget;
  /** Refuses (INTERNAL) an identity that holds a registered secret. */
  parent(identity: string): Promise<LockTarget>;
  /** Whether `holder` holds the scope's lease now (a combining holder checks each waiter's). */
  holdsScope(repositoryId: number, environment: string, scope: string, holder: string): Promise<boolean>;
}

export interface ScopeGate {
  /** The state of one repository's scope (scopes of two repositories never share it). */
  read(repositoryId: number, scope: string): Promise<ScopeSnapshot>;
}

/** The objects whose locks keep ownership, read without a lease (the sweep's orphan search). */
export interface OwnedObjects {
  list(): Promise<Array<{ key: string; identity: string }>>;
  read(identity: string): Promise<OwnershipRecord>;
  /**
   * Keeps an admin's intent to remove an orphan, with its reason, before anything is sent
   * (throws AUDIT_UNAVAILABLE when it cannot: the removal is then refused).
   */
  recordRemovalIntent(intent: OrphanRemovalAudit): Promise<void>;
  /** Replaces the intent with its outcome; false when that could not be written (the intent stays). */
  recordRemoval(record: OrphanRemovalAudit): Promise<boolean>;
}

export interface WriteCheck {
  environment: string;
  op: string;
  identity: string | null;
  item: string;
}

/** The preview-URL shape check's rules in force in an environment (shared/url-shape.ts). */
export type UrlChecksOf = (environment: string) => UrlChecks;

/** Server-side policy: throws FORBIDDEN naming the rule when a write is not allowed. */
export interface WritePolicy {
  check(write: WriteCheck): void;
}

/**
 * Points where tests crash a run or take its lease away on purpose (the reliability and property
 * suites): every await of a group write where a real run may die or lose its lease.
 */
export type FaultPoint =
  /** The parent lease is granted; the combine queue is not taken yet. */
  | "after-acquire"
  | "after-intent"
  /** The ownership changes made before the write are recorded; the write is not sent yet. */
  | "after-owners"
  | "after-write"
  /** The ownership changes after the write (and the combined report) are recorded. */
  | "after-report"
  | "after-answer"
  /** The run's last receipt save is next (detail names no line). */
  | "before-save";
export type FaultHook = (
  point: FaultPoint,
  detail: {
    line: string;
    key: string;
    /** The object's identity (its parent lock), when the point is in a group write. */
    parent?: string | null;
    action: string;
    runId: string;
    /** Every item of the object's group: all of them have intents, and one write carries them. */
    group: ReadonlyArray<{ line: string; key: string; action: string }>;
  },
) => void | Promise<void>;

export interface EngineDeps {
  store: ReceiptStore;
  locks: LockProvider;
  ops: OpRegistry;
  /** The service's connections (SPONSON_CONNECTIONS): the only way a run reaches a provider. */
  connections: Connections;
  /** Worker vars and secrets, where the secrets a connection names are read. */
  vars: Record<string, unknown>;
  secrets: SecretRegistry;
  fetch: typeof fetch;
  clock: Clock;
  /** The fleet's token objects per connection (durable-objects/token-broker.ts); absent: isolate cache only. */
  tokens?: (connection: string) => SharedTokens;
  /**
   * The isolate's token cache: production passes true (the isolate's own); a test false (every
   * lookup as on a fresh isolate) or a cache of the runs' own. A dependency, not one of the
   * `controls`: which cache a run reads changes how many token exchanges it makes, never what the
   * lease protocol guarantees.
   */
  isolateTokenCache?: boolean | IsolateTokenCache;
  /**
   * The fleet's budget objects per connection (durable-objects/budget-bucket.ts; docs/design.md,
   * "Write budgets"); absent: provider calls go as they come.
   */
  budgets?: (connection: string) => SharedBudgets;
  ttlMs: number;
  waitTimeoutMs: number;
  /** The protocol's mechanisms, each on in production (controls.ts: PRODUCTION_CONTROLS). */
  controls: EngineControls;
  /**
   * An environment's `staleAfterDays` (SPONSON_ENVIRONMENTS): a scope idle longer is stale in a
   * LIST_FULL answer (docs/design.md, "Lists at their cap"). Absent or undefined: never idle.
   */
  staleAfterDays?: (environment: string) => number | undefined;
  /**
   * An environment's `evictStale` (SPONSON_ENVIRONMENTS): a write past a list's cap first evicts
   * stale scopes' entries (docs/design.md, "Evicting stale scopes"). Absent: never.
   */
  evictStale?: (environment: string) => boolean;
  /** Records an eviction in the audit trail (docs/design.md, "Evicting stale scopes"). */
  auditEviction?: (record: EvictionAudit) => Promise<void>;
  /**
   * SPONSON_RECENT_WRITES_SECONDS: how long the parent lock remembers writes (docs/design.md,
   * "Providers that forget a write"), instead of each op's own window.
   */
  recentWritesWindowMs?: number;
  /** Whether runs in an environment combine writes (SPONSON_WRITE_COMBINING); off when absent. */
  combining?: (environment: string) => boolean;
  gate?: ScopeGate;
  owned?: OwnedObjects;
  policy?: WritePolicy;
  /** Absent: every rule of the shape check holds in every environment. */
  urlChecks?: UrlChecksOf;
  faults?: FaultHook;
  warn?: (message: string) => void;
  /** Where an unexpected error inside a run is logged (redacted); console.error when absent. */
  logError?: (message: string) => void;
}

export type Emit = (event: RunEvent) => void;
