/**
 * Every request that can change a provider re-checks the leases it is made under, right before it
 * is sent: an adapter that retries a write after a backoff must not send it once a holder's
 * deadline has passed. Reads go through unchecked.
 */
export function fencedFetch(
  fetcher: typeof fetch,
  leases: ReadonlyArray<{ assertHeld(): void } | null>,
): typeof fetch {
  return (input, init) => {
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    if (method !== "GET" && method !== "HEAD") for (const lease of leases) lease?.assertHeld();
    return fetcher(input, init);
  };
}
