/**
 * The contract of a provider emulator: a module that answers like the provider (same paths,
 * bodies, status codes, error envelopes, rate-limit headers) on state kept by its host's object.
 */

export interface EmulatorState {
  get<T>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
  delete(key: string): void;
  list<T>(prefix: string): Map<string, T>;
}

export interface ProviderEmulatorModule {
  /** e.g. "auth0" */
  readonly provider: string;
  /** Whether this module answers for a host, e.g. /\.auth0\.com$/ */
  matches(host: string): boolean;
  /** Is this request a read of a shared object (the barrier holds reads)? */
  isRead(request: Request): boolean;
  /** Is this request a write of a shared object? */
  isWrite(request: Request): boolean;
  handle(request: Request, state: EmulatorState): Promise<Response>;
  /** The provider's own error response for an injected failure (429 carries its reset headers). */
  injectedError(status: number, nowMs: number): Response;
}
