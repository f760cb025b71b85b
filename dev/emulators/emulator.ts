import type { BudgetedModule } from "./budget";

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

export interface ProviderEmulatorModule extends BudgetedModule {
  /** e.g. "auth0" */
  readonly provider: string;
  /** Whether this module answers for a host, e.g. /\.auth0\.com$/ */
  matches(host: string): boolean;
  /**
   * The emulator object that holds a request's state, when it is not the request's host (an S3
   * path-style request for `s3.{region}.amazonaws.com/{bucket}` is kept by the bucket's own host).
   */
  objectName?(url: URL): string;
  /** Is this request a read of a shared object (the barrier holds reads)? */
  isRead(request: Request): boolean;
  /** Is this request a write of a shared object? */
  isWrite(request: Request): boolean;
  /**
   * `outbound`: how the emulated cloud reaches a third-party issuer's discovery document and JWKS
   * (./oidc-assertions.ts); in dev and tests that issuer is the service itself.
   */
  handle(request: Request, state: EmulatorState, outbound: typeof fetch): Promise<Response>;
  /** The provider's own error response for an injected failure (429 carries its reset headers). */
  injectedError(status: number, nowMs: number): Response;
}

/**
 * Headers every provider's front end adds to every answer, injected failures included. SDKs rely
 * on them: Okta's waits `X-Rate-Limit-Reset − Date` after a 429.
 */
export function withProviderHeaders(response: Response, nowMs: number): Response {
  if (response.headers.has("date")) return response;
  const out = new Response(response.body, response);
  out.headers.set("date", new Date(nowMs).toUTCString());
  return out;
}
