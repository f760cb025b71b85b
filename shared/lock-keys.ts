import { canonicalIdentity } from "./canonical-identity";
import { SponsonError } from "./errors";
import type { LockKind } from "./schemas/lock";
import type { SecretRegistry } from "./secrets";

/**
 * The environment reserved for parent locks (docs/design.md, "Vocabulary"); a plan may not lock scopes under
 * it.
 */
export const PARENT_LOCKS_ENVIRONMENT = "_locks";

const SCOPE_PATTERN = /^(pr-[1-9][0-9]{0,9}|branch-[A-Za-z0-9._/-]{1,200}|main)$/;
const ENVIRONMENT_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;
const PARENT_KEY_PATTERN = /^_locks\/[0-9a-f]{32}$/;
const SCOPE_KEY_PATTERN = /^scope:([1-9][0-9]{0,15})\/([^/]+)\/(.+)$/;
const REPOSITORY_ID_PATTERN = /^[1-9][0-9]{0,15}$/;

export function isValidScope(scope: string): boolean {
  return SCOPE_PATTERN.test(scope);
}

export function isValidEnvironment(environment: string): boolean {
  return ENVIRONMENT_PATTERN.test(environment) && environment !== PARENT_LOCKS_ENVIRONMENT;
}

/** A GitHub repository id: a positive integer, written in keys in decimal. */
export function isValidRepositoryId(id: number): boolean {
  return Number.isSafeInteger(id) && id > 0 && REPOSITORY_ID_PATTERN.test(String(id));
}

export function assertRepositoryId(id: number): void {
  if (!isValidRepositoryId(id)) {
    throw new SponsonError("VALIDATION", `repository id "${id}" is not a positive integer`);
  }
}

/**
 * `scope:<repository id>/<environment>/<scope>`: a scope belongs to one repository, by id, so two
 * repositories' `pr-5` never share a lock.
 */
export function scopeLockKey(repositoryId: number, environment: string, scope: string): string {
  assertRepositoryId(repositoryId);
  if (!isValidEnvironment(environment)) {
    throw new SponsonError("VALIDATION", `environment "${environment}" is not a valid environment name`);
  }
  if (!isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `scope "${scope}" must be pr-<n>, branch-<name> or main`);
  }
  return `scope:${repositoryId}/${environment}/${scope}`;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `_locks/<first 32 hex of sha256(identity)>`, of the canonical identity (./canonical-identity.ts):
 * every spelling of one object's host is one lock. The identity is written to lock records and
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
  return `${PARENT_LOCKS_ENVIRONMENT}/${(await sha256Hex(canonicalIdentity(identity))).slice(0, 32)}`;
}

export type ParsedLockKey =
  | { kind: "scope"; repositoryId: number; environment: string; scope: string }
  | { kind: "parent"; hash: string };

export function parseLockKey(key: string): ParsedLockKey | null {
  if (PARENT_KEY_PATTERN.test(key))
    return { kind: "parent", hash: key.slice(PARENT_LOCKS_ENVIRONMENT.length + 1) };
  const m = SCOPE_KEY_PATTERN.exec(key);
  if (m?.[1] && m[2] && m[3] && isValidEnvironment(m[2]) && isValidScope(m[3])) {
    return { kind: "scope", repositoryId: Number(m[1]), environment: m[2], scope: m[3] };
  }
  return null;
}

export function lockKind(key: string): LockKind | null {
  return parseLockKey(key)?.kind ?? null;
}

/**
 * A provider object's identity as `lockOn` writes it (docs/design.md, "Vocabulary"): a provider
 * prefix, a colon, then no whitespace (`auth0:<tenant>:client:<client id>`, `gcs:<bucket>:cors`).
 */
const IDENTITY_PATTERN = /^[a-z][a-z0-9-]{0,31}:\S{1,480}$/;

/** The words every refusal of a lock name uses, so each door says the same. */
export const LOCK_NAME_FORMS =
  "a lock key (scope:<repository id>/<environment>/<scope> or _locks/<hash>) or a provider object's identity (e.g. auth0:<tenant>:client:<client id>)";

/**
 * What a caller typed to name a lock, as the lock's key: a lock key as it is; a provider object's
 * identity as its parent lock's key (the one place outside the engine that hashes one, so the
 * CLI, the API and the dashboard agree); null for anything else. Text that starts like a key but
 * is not one (`scope:…/pr-0`, `_locks/abc`) is a mistyped key, never an identity, so it is not
 * quietly turned into the name of a lock nobody uses.
 */
export async function resolveLockName(
  name: string,
): Promise<{ key: string; identity: string | null } | null> {
  if (parseLockKey(name) !== null) return { key: name, identity: null };
  if (name.startsWith("scope:") || name.startsWith(`${PARENT_LOCKS_ENVIRONMENT}/`)) return null;
  if (!IDENTITY_PATTERN.test(name)) return null;
  const identity = canonicalIdentity(name);
  return { key: `${PARENT_LOCKS_ENVIRONMENT}/${(await sha256Hex(identity)).slice(0, 32)}`, identity };
}
