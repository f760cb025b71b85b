import { SponsonError } from "./errors";
import type { LockKind } from "./schemas/lock";
import type { SecretRegistry } from "./secrets";

/** The environment reserved for parent locks (seed 000); a plan may not lock scopes under it. */
export const PARENT_LOCKS_ENVIRONMENT = "_locks";

const SCOPE_PATTERN = /^(pr-[1-9][0-9]{0,9}|branch-[A-Za-z0-9._/-]{1,200}|main)$/;
const ENVIRONMENT_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;
const PARENT_KEY_PATTERN = /^_locks\/[0-9a-f]{32}$/;
const SCOPE_KEY_PATTERN = /^scope:([^/]+)\/(.+)$/;

export function isValidScope(scope: string): boolean {
  return SCOPE_PATTERN.test(scope);
}

export function isValidEnvironment(environment: string): boolean {
  return ENVIRONMENT_PATTERN.test(environment) && environment !== PARENT_LOCKS_ENVIRONMENT;
}

export function scopeLockKey(environment: string, scope: string): string {
  if (!isValidEnvironment(environment)) {
    throw new SponsonError("VALIDATION", `environment "${environment}" is not a valid environment name`);
  }
  if (!isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `scope "${scope}" must be pr-<n>, branch-<name> or main`);
  }
  return `scope:${environment}/${scope}`;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `_locks/<first 32 hex of sha256(identity)>`. The identity is written to lock records and
 * receipts, so one that contains a registered secret is refused before anything is stored.
 */
export async function parentLockKey(identity: string, secrets: SecretRegistry): Promise<string> {
  if (identity.length === 0 || identity.length > 512) {
    throw new SponsonError("INTERNAL", "a parent identity must be 1 to 512 characters");
  }
  if (secrets.containsSecret(identity)) {
    // The message must not repeat the identity: it holds the secret.
    throw new SponsonError(
      "INTERNAL",
      "a parent identity contains a registered secret; refusing to lock on it",
    );
  }
  return `${PARENT_LOCKS_ENVIRONMENT}/${(await sha256Hex(identity)).slice(0, 32)}`;
}

export type ParsedLockKey =
  | { kind: "scope"; environment: string; scope: string }
  | { kind: "parent"; hash: string };

export function parseLockKey(key: string): ParsedLockKey | null {
  if (PARENT_KEY_PATTERN.test(key))
    return { kind: "parent", hash: key.slice(PARENT_LOCKS_ENVIRONMENT.length + 1) };
  const m = SCOPE_KEY_PATTERN.exec(key);
  if (m?.[1] && m[2] && isValidEnvironment(m[1]) && isValidScope(m[2])) {
    return { kind: "scope", environment: m[1], scope: m[2] };
  }
  return null;
}

export function lockKind(key: string): LockKind | null {
  return parseLockKey(key)?.kind ?? null;
}
