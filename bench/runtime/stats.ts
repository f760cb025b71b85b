/** Median and p99 (nearest rank) of a sample, and the line the runner picks results up from. */
export function summary(samples: number[]): { median: number; p99: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  return { median: rank(0.5), p99: rank(0.99), n: sorted.length };
}

/** bench/run.mjs reads every stdout line that starts with this marker. */
export function report(name: string, value: unknown): void {
  console.log(`BENCH_RESULT ${JSON.stringify({ name, value })}`);
}

export const now = () => performance.now();
