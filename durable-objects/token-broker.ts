/**
 * One object per connection credential (named by the connection and a SHA-256 fingerprint of its
 * endpoint, client id and secret, workers/adapters/http/shared-tokens.ts): the access token the whole
 * fleet shares, refreshed by one caller at a time (docs/design.md, "Provider tokens").
 *
 * Single flight is a claim, like a lease: the first caller that finds no usable token is told to
 * exchange; callers that arrive meanwhile are given the old token while it has not expired, else
 * wait here for the claimer's `store`. A claimer that fails says `abandon`; one that goes silent
 * loses its claim after CLAIM_TTL_MS. Either way the waiters are told to exchange on their own, so
 * no caller waits on a refresher for longer than that; a caller under a lease gives its deadline,
 * and its wait ends there when that comes first (`late`).
 *
 * The token is kept in the object's storage under one key (docs/storage.md), so an object evicted
 * between two bursts of runs still holds it: in memory only, every eviction would cost the fleet one
 * more exchange. It is deleted on a reported 401 and by an alarm once it has expired. Claims and
 * waiters are memory only: a restarted object has none, and a store without a live claim is still
 * accepted. The object logs nothing and its one error message names fields, never values; its
 * answers go only to the Worker that called it, which registers the token as a secret before use.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { Env } from "../shared/env";
import {
  type StoredToken,
  sha256Hex,
  storedTokenSchema,
  type TokenAnswer,
  type TokenBrokerApi,
  type TokenBrokerStatus,
} from "../shared/rpc/token-broker";

/** Longer than one exchange with its retries may take (DEFAULT_RETRY waits at most 30 s). */
export const CLAIM_TTL_MS = 45_000;

/** The one storage key (docs/storage.md, "Token objects"). */
const TOKEN_KEY = "token";

const heldSchema = storedTokenSchema.extend({ digest: z.string().length(64) });
type Held = z.infer<typeof heldSchema>;

interface Waiter {
  resolve(answer: TokenAnswer): void;
  /** Answers `late` at the caller's deadline, unless woken first. */
  timer?: ReturnType<typeof setTimeout>;
}

interface Claim {
  id: string;
  timer: ReturnType<typeof setTimeout>;
}

/** Pure: what a caller at `nowMs` is given: the held token, the claim to exchange, or a wait. */
export function decide(
  held: StoredToken | undefined,
  refreshing: boolean,
  nowMs: number,
): "token" | "exchange" | "wait" {
  if (held && nowMs < held.refreshAtMs) return "token";
  // Someone is refreshing: the old token still works until it expires, so nobody waits for it.
  if (refreshing) return held && nowMs < held.expiresAtMs ? "token" : "wait";
  return "exchange";
}

export class TokenBroker extends DurableObject<Env> implements TokenBrokerApi {
  #held: Held | undefined;
  #claim: Claim | undefined;
  #waiters: Waiter[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      // Read back through its schema; anything else is as good as no token (one more exchange).
      const parsed = heldSchema.safeParse(await ctx.storage.get(TOKEN_KEY));
      this.#held = parsed.success ? parsed.data : undefined;
    });
  }

  async take(nowMs: number, waitUntilMs?: number): Promise<TokenAnswer> {
    const held = this.#held;
    switch (decide(held, this.#claim !== undefined, nowMs)) {
      case "token":
        return { kind: "token", token: (held as Held).token, refreshAtMs: (held as Held).refreshAtMs };
      case "exchange":
        return { kind: "exchange", claim: this.#startClaim() };
      case "wait":
        return new Promise((resolve) => {
          const waiter: Waiter = { resolve };
          // Never past the claim's own expiry, which wakes every waiter anyway: min(45 s, deadline).
          if (waitUntilMs !== undefined && Number.isFinite(waitUntilMs)) {
            waiter.timer = setTimeout(
              () => {
                this.#waiters = this.#waiters.filter((w) => w !== waiter);
                resolve({ kind: "late" });
              },
              Math.min(CLAIM_TTL_MS, Math.max(0, waitUntilMs - nowMs)),
            );
          }
          this.#waiters.push(waiter);
        });
    }
  }

  async store(claim: string | null, stored: StoredToken): Promise<void> {
    const parsed = storedTokenSchema.safeParse(stored);
    // Field names only: the values hold the token.
    if (!parsed.success)
      throw new Error(`token store: invalid ${parsed.error.issues.map((i) => i.path.join("."))}`);
    const next = parsed.data;
    // A late or unclaimed store only replaces a token that expires sooner.
    if (claim === this.#claim?.id || !this.#held || next.expiresAtMs > this.#held.expiresAtMs) {
      this.#held = { ...next, digest: await sha256Hex(next.token) };
      await this.ctx.storage.put(TOKEN_KEY, this.#held);
      await this.ctx.storage.setAlarm(next.expiresAtMs);
    }
    if (claim !== null && claim === this.#claim?.id) this.#endClaim();
    const held = this.#held;
    if (held) this.#wake({ kind: "token", token: held.token, refreshAtMs: held.refreshAtMs });
  }

  async abandon(claim: string): Promise<void> {
    if (claim !== this.#claim?.id) return;
    this.#endClaim();
    this.#wake({ kind: "self" });
  }

  async drop(tokenDigest: string): Promise<boolean> {
    if (this.#held?.digest !== tokenDigest) return false;
    this.#held = undefined;
    await this.ctx.storage.delete(TOKEN_KEY);
    return true;
  }

  /** Alarms may fire more than once or late: it deletes only a token that has expired by now. */
  override async alarm(): Promise<void> {
    if (this.#held && Date.now() < this.#held.expiresAtMs) {
      await this.ctx.storage.setAlarm(this.#held.expiresAtMs);
      return;
    }
    this.#held = undefined;
    await this.ctx.storage.delete(TOKEN_KEY);
  }

  async status(): Promise<TokenBrokerStatus> {
    return {
      holdsToken: this.#held !== undefined,
      refreshing: this.#claim !== undefined,
      waiting: this.#waiters.length,
    };
  }

  #startClaim(): string {
    const id = crypto.randomUUID();
    const timer = setTimeout(() => {
      if (this.#claim?.id !== id) return;
      this.#claim = undefined;
      this.#wake({ kind: "self" });
    }, CLAIM_TTL_MS);
    this.#claim = { id, timer };
    return id;
  }

  #endClaim(): void {
    if (this.#claim) clearTimeout(this.#claim.timer);
    this.#claim = undefined;
  }

  #wake(answer: TokenAnswer): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) {
      if (waiter.timer !== undefined) clearTimeout(waiter.timer);
      waiter.resolve(answer);
    }
  }
}
