/**
 * What every property file shares: its settings from VITE_-prefixed variables (vite hands them to
 * the test isolate as import.meta.env) and how to replay one failing case fast-check printed.
 */
import type fc from "fast-check";

export const viteEnv = (import.meta as unknown as { env?: Record<string, string | undefined> }).env ?? {};

/** `VITE_PROPERTY_SEED` / `VITE_PROPERTY_PATH`, else the file's own REPLAY constant, else a fresh run. */
export function replayParameters<T>(replay: { seed: number; path?: string } | null): fc.Parameters<T> {
  if (viteEnv.VITE_PROPERTY_SEED !== undefined) {
    const path = viteEnv.VITE_PROPERTY_PATH;
    return { seed: Number(viteEnv.VITE_PROPERTY_SEED), ...(path ? { path, endOnFailure: true } : {}) };
  }
  if (replay) return { seed: replay.seed, ...(replay.path ? { path: replay.path, endOnFailure: true } : {}) };
  return {};
}

/** Scope numbers start at a random base per file run and never repeat within it. */
export function scopeNumbering(maxScopes: number): () => (i: number) => string {
  const base = 100_000_000 + Math.floor(Math.random() * 800_000_000);
  let worlds = 0;
  return () => {
    const first = base + worlds++ * maxScopes;
    return (i) => `pr-${first + i}`;
  };
}
