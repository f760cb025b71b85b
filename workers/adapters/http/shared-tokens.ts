/**
 * The second level of the token cache: the fleet's token object for a connection credential
 * (durable-objects/token-broker.ts). Whoever the object tells to exchange buys the token here, with
 * the adapter's own `fetchToken` (hosts from service configuration only), and hands it over; every
 * other isolate is given that token. No credential crosses the RPC boundary, only the token.
 *
 * The object saves exchanges; it is never needed for a run to succeed. When it cannot be reached the
 * caller exchanges on its own, as it did before the object existed, and a failed hand-over only
 * costs other isolates their own exchange.
 */
import { SponsonError } from "../../../shared/errors";
import type { StoredToken, TokenBrokerApi } from "../../../shared/rpc/token-broker";
import { sha256Hex } from "../../../shared/rpc/token-broker";
import type { SecretRegistry } from "../../../shared/secrets";

/** One connection's door to the fleet's token objects (wired in workers/wiring/wire.ts). */
export interface SharedTokens {
  /** The object for this connection's credential with the given fingerprint. */
  object(fingerprint: string): TokenBrokerApi;
}

/** The token and when to stop reusing it (the caller's clock). */
export type HeldToken = Pick<StoredToken, "token" | "refreshAtMs">;

const ignore = () => undefined;

/**
 * No token came before the caller's lease deadline: another isolate's exchange was still running.
 * Nothing was sent with a token, so the outcome is known (docs/design.md, "Provider tokens").
 */
export function tokenWaitEnded(): SponsonError {
  return new SponsonError(
    "PROVIDER_ERROR",
    "no provider token before the lease deadline: another isolate's token exchange was still running, and nothing was sent",
    { tokenWait: "deadline" },
  );
}

/**
 * The fleet's token for this credential, exchanging with `exchange` only when the object says so.
 * A wait for another caller's exchange ends at `waitUntilMs` (a lease deadline) with `tokenWaitEnded`.
 */
export async function fleetToken(
  broker: TokenBrokerApi,
  nowMs: number,
  secrets: SecretRegistry,
  exchange: () => Promise<StoredToken>,
  waitUntilMs?: number,
): Promise<HeldToken> {
  let answer: Awaited<ReturnType<TokenBrokerApi["take"]>>;
  try {
    answer = await (waitUntilMs !== undefined && Number.isFinite(waitUntilMs)
      ? broker.take(nowMs, waitUntilMs)
      : broker.take(nowMs));
  } catch {
    // The object is an optimisation: unreachable, it must not fail the run (see the header).
    return exchange();
  }
  switch (answer.kind) {
    case "token":
      secrets.register(answer.token);
      return { token: answer.token, refreshAtMs: answer.refreshAtMs };
    case "exchange": {
      let bought: StoredToken;
      try {
        bought = await exchange();
      } catch (err) {
        await broker.abandon(answer.claim).catch(ignore);
        throw err;
      }
      await broker.store(answer.claim, bought).catch(ignore);
      return bought;
    }
    case "late":
      throw tokenWaitEnded();
    case "self": {
      const bought = await exchange();
      await broker.store(null, bought).catch(ignore);
      return bought;
    }
  }
}

/** After a 401: the object forgets the token if it still holds it (compared by digest, not value). */
export async function reportRejected(broker: TokenBrokerApi, token: string): Promise<void> {
  await broker.drop(await sha256Hex(token)).catch(ignore);
}
