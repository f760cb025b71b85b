/**
 * A provider's final refusal or failure as a SponsonError (docs/design.md, "Errors": PROVIDER_ERROR carries
 * the provider's own message). Every registered secret is redacted from what we keep (docs/design.md,
 * "Vocabulary").
 */
import { SponsonError } from "../../../shared/errors";
import type { SecretRegistry } from "../../../shared/secrets";

/** Long provider messages are cut: they end up in receipts and problem responses. */
const MAX_MESSAGE_CHARS = 500;

export interface ProviderFailure {
  provider: string;
  /** HTTP status, or null when no response came back (network error). */
  status: number | null;
  message: string;
  providerCode?: string | undefined;
  attempts: number;
  /** Set when the provider said "slow down" with a status that does not say so (Cognito's 400). */
  retriable?: boolean;
  /**
   * "unknown": a write that may have landed although this answer says otherwise (an attempt got no
   * answer or a 5xx: a later refusal, a precondition refusing that attempt's own landing, a last
   * 5xx or no answer at all say nothing of it); the engine's fence treats it as no answer at all
   * (docs/design.md, "Fencing around a write"). Never set for a read or a token exchange.
   */
  outcome?: "unknown";
}

export function providerError(secrets: SecretRegistry, failure: ProviderFailure): SponsonError {
  const message = secrets.redact(failure.message).slice(0, MAX_MESSAGE_CHARS);
  const status = failure.status === null ? "network error" : String(failure.status);
  const detail: Record<string, unknown> = {
    provider: failure.provider,
    status: failure.status,
    attempts: failure.attempts,
    ...(failure.providerCode !== undefined ? { providerCode: secrets.redact(failure.providerCode) } : {}),
    ...(failure.outcome ? { outcome: failure.outcome } : {}),
  };
  return new SponsonError("PROVIDER_ERROR", `${failure.provider}: ${status} ${message}`.trimEnd(), detail, {
    retriable: failure.retriable ?? (failure.outcome === "unknown" || retriableStatus(failure.status)),
  });
}

/**
 * Whether the provider may answer differently next time: no answer, a timeout, throttling or a
 * server error may pass; any other 4xx (bad credentials, a missing application, an invalid value)
 * is the provider's considered refusal and comes back the same.
 */
function retriableStatus(status: number | null): boolean {
  return status === null || status === 408 || status === 425 || status === 429 || status >= 500;
}

/**
 * The lease lost around a provider request that changes nothing (a read, a token exchange, a POST
 * marked `read`): still unanswered at the lease deadline, or refused by the transport once that
 * deadline passed. Nothing it sent can land, so it is a plain lost lease (LOCK_LOST, no outcome),
 * never a write that may have landed; its class tells the engine's fence so (docs/design.md,
 * "Fencing around a write").
 */
export class LeaseLostOnRead extends SponsonError {
  constructor(message: string, detail?: Record<string, unknown>) {
    super("LOCK_LOST", message, detail);
    this.name = "LeaseLostOnRead";
  }
}

/** The HTTP status of a PROVIDER_ERROR, if it is one that came from a response. */
export function providerStatus(err: unknown): number | null {
  if (!(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") return null;
  return err.providerStatus;
}
