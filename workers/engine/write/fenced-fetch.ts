/**
 * Every provider request made under leases (docs/design.md, "Lease protocol", fencing). A request
 * that can change a provider re-checks the leases right before it is sent: an adapter that retries
 * a write after a backoff must not send it once a holder's deadline has passed (reads go through
 * unchecked). Every request carries an AbortSignal that fires at the earliest lease deadline (or
 * the provider request timeout, whichever is first): the run stops waiting for an answer it could
 * no longer act on. Aborting does not unsend a request; the lock-delay covers one that lands late.
 */
import type { Clock } from "../../../shared/clock";
import { SponsonError } from "../../../shared/errors";
import { PROVIDER_REQUEST_TIMEOUT_MS } from "../../../shared/lease-defaults";
import { LeaseLostOnRead } from "../../adapters/http/provider-error";

export interface FencingLease {
  assertHeld(): void;
  readonly deadline: number;
}

export function fencedFetch(
  fetcher: typeof fetch,
  leases: ReadonlyArray<FencingLease | null>,
  clock: Clock,
): typeof fetch {
  return (input, init) => {
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const read = method === "GET" || method === "HEAD";
    if (!read) for (const lease of leases) lease?.assertHeld();
    const now = clock.now();
    const leaseDeadline = Math.min(...leases.map((l) => l?.deadline ?? Number.POSITIVE_INFINITY));
    const lateAt = Math.min(leaseDeadline, now + PROVIDER_REQUEST_TIMEOUT_MS);
    // Past the deadline a write may still land; a read never does (a POST that changes nothing is
    // said so by providerRequest, which knows it: ProviderRequest.read).
    const reason =
      lateAt !== leaseDeadline
        ? requestTimeout(input)
        : read
          ? new LeaseLostOnRead(
              `provider read from ${hostOf(input)} still unanswered at the lease deadline: the lease is lost (nothing a read sends can land)`,
            )
          : new SponsonError(
              "LOCK_LOST",
              `provider request to ${hostOf(input)} still unanswered at the lease deadline: it may have landed`,
              { outcome: "unknown" },
            );
    return bounded(fetcher, { input, init }, { clock, ms: lateAt - now, reason });
  };
}

/**
 * The earliest deadline of `leases` (Infinity with none), read when asked: renewals move it. Put in
 * the context as `deadline`, it bounds a wait for another isolate's token (docs/design.md, "Provider tokens").
 */
export function leaseDeadline(leases: ReadonlyArray<FencingLease | null>): () => number {
  return () => Math.min(...leases.map((l) => l?.deadline ?? Number.POSITIVE_INFINITY));
}

/** A provider request still unanswered after PROVIDER_REQUEST_TIMEOUT_MS: a network error to retry. */
export function requestTimeout(input: RequestInfo | URL): Error {
  return new Error(`provider request to ${hostOf(input)} timed out after ${PROVIDER_REQUEST_TIMEOUT_MS} ms`);
}

/** When a bounded request is given up: after `ms` on `clock`, rejecting with `reason`. */
export interface Bound {
  clock: Clock;
  ms: number;
  reason: Error;
}

/**
 * The request `fetcher` sends, with an AbortSignal that fires at `bound`, and settled by it
 * whether or not the transport honours the signal.
 */
export async function bounded(
  fetcher: typeof fetch,
  { input, init }: { input: RequestInfo | URL; init: RequestInit | undefined },
  { clock, ms, reason }: Bound,
): Promise<Response> {
  const controller = new AbortController();
  let timer: unknown = null;
  const late = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(
      () => {
        controller.abort(reason);
        reject(reason);
      },
      Math.max(0, ms),
    );
  });
  const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
  const sent = fetcher(input, { ...init, signal });
  // Settled by `late` first, its own rejection (the abort) has no one left to hear it.
  sent.catch(() => {});
  try {
    return await Promise.race([sent, late]);
  } finally {
    clock.clearTimeout(timer);
  }
}

function hostOf(input: RequestInfo | URL): string {
  try {
    return new URL(input instanceof Request ? input.url : String(input)).host;
  } catch {
    return "the provider";
  }
}
