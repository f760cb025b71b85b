/**
 * The op model (docs/design.md, "Vocabulary"). An op manages one kind of item; `lockOn` names the shared
 * provider object the item lives in, or null when items are objects of their own.
 */
import type { z } from "zod";
import type { Clock } from "../../shared/clock";
import type { SecretRegistry } from "../../shared/secrets";
import type { ConnectionSettings } from "../connections/connection-schema";
import type { FederationAssertions } from "../keys/federation";
import type { ProviderBudget, RequestBudget } from "./http/provider-budget";
import type { SharedTokens } from "./http/shared-tokens";
import type { IsolateTokenCache } from "./http/token-cache";

export type Params = Record<string, string>;

/** What every provider call gets: resolved config (secret values included), transport, time. */
export interface OpContext<Config = Record<string, unknown>> {
  config: Config;
  /** Outbound HTTP; in tests and under `npm start` it reaches the provider emulators. */
  fetch: typeof fetch;
  clock: Clock;
  secrets: SecretRegistry;
  /** The fleet's token objects for this connection's credential (docs/design.md, "Provider tokens"). */
  tokens?: SharedTokens;
  /** false: no isolate token cache; an instance: that one, as on an isolate of its own (tests, bench). */
  isolateCache?: boolean | IsolateTokenCache;
  /** A federated connection's assertions, for its own subject only (workers/keys/federation.ts). */
  federation?: FederationAssertions;
  /** Under a lease, its deadline: a wait for another isolate's token ends there (token-cache.ts). */
  deadline?: () => number;
  /** Under a fence: told of each write attempt that may have landed unanswered (http/provider-request.ts). */
  onUnansweredWrite?: () => void;
  /** Under a fence: told of each write attempt the provider accepted (http/provider-request.ts). */
  onWriteAccepted?: () => void;
  /** The provider tenant's budget every counted call takes from (http/provider-budget.ts). */
  budget?: RequestBudget;
}

export interface Inspection {
  present: boolean;
  /** Adapter-private state from the read (e.g. GCS metageneration) for a precondition on write. */
  state?: unknown;
}

export interface OpSpec<Config = Record<string, unknown>> {
  /** e.g. "auth0.callbackUrl" */
  readonly name: string;
  /** the `type` of the connection it needs, e.g. "auth0" */
  readonly providerType: string;
  /** Validates resolved line params. */
  readonly params: z.ZodType<Params>;
  /** Stable key of the item within its object (e.g. the URL); recorded in the ledger. */
  key(params: Params): string;
  /** The param that holds the item (its value is `key`): another item of the same list is `{ ...params, [itemParam]: key }`. */
  readonly itemParam: string;
  /** Set when the item is an origin (a web-origins or CORS list), not a URL; see `OriginItems`. */
  readonly origin?: OriginItems;
  /**
   * Set when an item, a bare host, also admits every name under it (Turnstile's hostnames, reCAPTCHA's allowed domains): the URL
   * shape check judges it as `*.<item>` (shared/url-shape.ts; docs/design.md, "Security model").
   */
  readonly coversSubdomains?: boolean;
  /**
   * For an op whose key is not the item param's value alone (Entra: `<kind>:<url>`): the params a
   * key of `list` stands for, or null when it is not one. Another item of the list is then
   * `{ ...params, ...paramsOfKey(key) }`.
   */
  paramsOfKey?(key: string): Params | null;
  /**
   * Pure: no provider call. The identity of the shared object, from params and the connection's
   * non-secret settings (service configuration, never the plan).
   */
  lockOn(params: Params, connection: ConnectionSettings): string | null;
  inspect(ctx: OpContext<Config>, params: Params): Promise<Inspection>;
  /** Adds the item; `seen` is the inspection made under the lease. Idempotent. */
  create(ctx: OpContext<Config>, params: Params, seen: Inspection): Promise<void>;
  /** Removes the item; absent is success. */
  remove(ctx: OpContext<Config>, params: Params, seen: Inspection): Promise<void>;
  /** Every item's key in the list the line's item lives in (the item param itself is ignored). */
  list(ctx: OpContext<Config>, params: Params): Promise<string[]>;
  /**
   * The provider's documented cap on the list the op's items live in (docs/adapters.md,
   * "Capacity"); absent where none is documented. Checked under the lease before a write
   * (docs/design.md, "Lists at their cap").
   */
  readonly capacity?: ListCapacity;
  /**
   * The many-items form, for ops whose items are entries of one provider object: a run changes all
   * its items on one object with one read and one write under one parent lease. Absent (Kinde, whose
   * API adds and removes single entries server-side): items are inspected and written one by one,
   * still under that one lease.
   */
  readonly batch?: BatchForm<Config>;
}

/** A documented cap (docs/adapters.md, "Capacity"), as the provider words it. */
export interface ListCapacity {
  /** At most this many entries. */
  readonly maxEntries: number;
  /** What is counted when it is more than the op's own list (Entra: every platform's redirect URIs). */
  readonly counts?: string;
  /** A lower cap in a documented case (Entra: 100 when personal Microsoft accounts sign in). */
  readonly lower?: { readonly maxEntries: number; readonly when: string };
  /**
   * A higher cap the provider documents for another plan (Turnstile: 200 hostnames on Enterprise).
   * `maxEntries` is the cap every account has; a connection's `capacity` may raise it up to this
   * one, since no read says which plan an account is on (docs/design.md, "Lists at their cap").
   */
  readonly higher?: { readonly maxEntries: number; readonly when: string };
  /**
   * When the op's items are not what the cap counts (S3: the cap counts rules, an item is an
   * origin in one): what a LIST_FULL answer's per-owner figures count, and how removing them frees
   * room, so the answer says which figure is which (docs/design.md, "Who holds a full list").
   */
  readonly owners?: { readonly counts: string; readonly frees: string };
  /** At most this many characters in one entry. */
  readonly maxEntryChars?: number;
  /** At most this many bytes in the document written (S3's CORS configuration: 64 KB). */
  readonly maxDocumentBytes?: number;
  /**
   * Pure, for a cap that counts more than the op's own list (`counts`): what the object, as read
   * or as edited (a `batch` state), holds against the cap. Absent: the op's list is counted.
   */
  measure?(state: unknown): CapacityMeasure;
}

/** An object's fill against a cap that spans its lists (docs/design.md, "Lists at their cap"). */
export interface CapacityMeasure {
  /** What the cap counts: Entra's URIs of every platform, S3's rules. */
  readonly entries: number;
  /** The object's own lower cap when it sets one (Entra: `signInAudience`). */
  readonly cap?: number;
  /** The size of the document a write would send (S3's CORS XML, UTF-8). */
  readonly bytes?: number;
  /** The op's item keys on the whole object, when `batch.keys` shows only part (S3: one rule's). */
  readonly keys?: readonly string[];
}

/**
 * An op whose items are origins: `scheme://host[:port]`, no path, no trailing slash, or one of the
 * provider's own `tokens`. A new line's item is held to it when the plan is admitted
 * (workers/engine/plan/item-shape.ts; docs/design.md, "Plans and connections"); `params` alone is
 * what a removal checks, so an entry written before the check existed can still be removed.
 */
export interface OriginItems {
  /** Values the provider takes besides origins: CORS's `*`, Keycloak's `+` (its redirect URIs' origins). */
  readonly tokens?: readonly string[];
}

/** `op`, whose items are origins. */
export function withOriginItems<Config>(op: OpSpec<Config>, origin: OriginItems = {}): OpSpec<Config> {
  return { ...op, origin };
}

/** `op`, whose bare-domain items the provider matches with every subdomain. */
export function withSubdomainItems<Config>(op: OpSpec<Config>): OpSpec<Config> {
  return { ...op, coversSubdomains: true };
}

/** `op` with its list's documented cap declared. */
export function withCapacity<Config>(op: OpSpec<Config>, capacity: ListCapacity): OpSpec<Config> {
  return { ...op, capacity };
}

export type ItemAction = "create" | "remove";

/**
 * One object's state as a group of ops sees it. Items of ops with the same `kind` on the same parent
 * (and connection) are read once and written once together; the state is adapter-private JSON.
 */
export interface BatchForm<Config = Record<string, unknown>> {
  readonly kind: string;
  /** The object holding the item named by `params` (any item of it). */
  read(ctx: OpContext<Config>, params: Params): Promise<unknown>;
  /** The keys of this op's list in the state (the list `params`' item belongs to). */
  keys(state: unknown, params: Params): string[];
  /**
   * For an op with several lists on one object (a bucket's CORS rules, each a list of origins):
   * the name of the list `params`' item is in (`rule previews`), so a cap is counted and its fill
   * recorded per list (docs/design.md, "Lists at their cap"). Absent: one list per object.
   */
  listName?(params: Params): string;
  /** Pure: the state with this op's item added or removed; the same state when it already is. */
  edit(state: unknown, params: Params, action: ItemAction): unknown;
  /**
   * One provider write of `edit(state)`, nothing when it changes nothing. With a precondition (GCS)
   * a refused write throws StaleState (stale-state.ts): the engine reads again and decides every
   * change of the group again, since the edits were decided from the state that changed. One
   * request (retried as itself): StaleState here says that nothing of the write landed. An op whose
   * write is several requests has no batch form: the engine sends one call per item and knows
   * which were written before a refusal (docs/design.md, "Fencing around a write").
   */
  write(
    ctx: OpContext<Config>,
    params: Params,
    state: unknown,
    edit: (state: unknown) => unknown,
  ): Promise<void>;
  /**
   * Set for providers with documented read-after-write lag (Entra's Graph): how long a successful
   * write may stay invisible to reads. The parent lock remembers writes this long and the writer
   * merges them over its read (docs/design.md, "Providers that forget a write").
   */
  readonly forgetsWritesForMs?: number;
}

/** One provider: how to validate a connection's config (secrets filled in) and its ops. */
export interface ProviderAdapter<Config = Record<string, unknown>> {
  readonly type: string;
  /** Validates a connection's settings with its credential fields filled from Worker secrets. */
  readonly config: z.ZodType<Config>;
  readonly ops: readonly OpSpec<Config>[];
  /**
   * Optional: remote calls the adapter needs before it can inspect or write (token exchanges).
   * The engine calls it before taking any lease, so none of them happens while one is held.
   */
  prepare?(ctx: OpContext<Config>): Promise<void>;
  /**
   * The provider's documented management-API budget per tenant (docs/adapters.md, "Write
   * budgets"); absent where none is documented: calls go as they come, 429s are retried.
   */
  readonly budget?: ProviderBudget;
}

/**
 * An adapter typed by its own Config, as the engine holds it. Sound because the engine only ever hands
 * an adapter's ops and `prepare` the value its own `config` schema parsed; the one cast that forgets
 * the Config lives here, and the argument is checked against `ProviderAdapter<Config>` in full.
 */
export function defineAdapter<Config>(adapter: ProviderAdapter<Config>): ProviderAdapter {
  return adapter as unknown as ProviderAdapter;
}

/** The entry a key names (what the write policy's item patterns match): the key itself, unless the op's key also names the list. */
export function entryOfKey(op: OpSpec | undefined, key: string): string {
  const named = op?.paramsOfKey?.(key);
  return (op && named?.[op.itemParam]) ?? key;
}
