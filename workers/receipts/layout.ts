/**
 * Where receipts live in R2: `receipts/<repository id>/<environment>/<scope>.json`. A scope belongs
 * to one repository by id, so two repositories' `pr-5` are two receipts. Neither a repository id
 * (digits) nor an environment contains "/" (shared/lock-keys.ts), so the first segment after the
 * prefix is the repository, the second the environment, and the rest — which may hold "/" for
 * `branch-<name>` scopes — is the scope. (The layout before repositories, which the upgrade moves
 * to this one, is workers/upgrade/legacy-receipt-keys.ts.)
 */
import { SponsonError } from "../../shared/errors";
import { assertRepositoryId, isValidEnvironment, isValidScope } from "../../shared/lock-keys";

export const RECEIPTS_PREFIX = "receipts/";
const SUFFIX = ".json";
const REPOSITORY_SEGMENT = /^[1-9][0-9]{0,15}$/;

export interface ReceiptAddress {
  repositoryId: number;
  environment: string;
  scope: string;
}

function assertEnvironment(environment: string): void {
  if (!isValidEnvironment(environment)) {
    throw new SponsonError("VALIDATION", `environment "${environment}" is not a valid environment name`);
  }
}

function assertScope(scope: string): void {
  if (!isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `scope "${scope}" must be pr-<n>, branch-<name> or main`);
  }
}

export function receiptKey(repositoryId: number, environment: string, scope: string): string {
  assertRepositoryId(repositoryId);
  assertEnvironment(environment);
  assertScope(scope);
  return `${RECEIPTS_PREFIX}${repositoryId}/${environment}/${scope}${SUFFIX}`;
}

/** The listing prefix: one repository's receipts (in one environment), or every receipt. */
export function receiptPrefix(repositoryId?: number, environment?: string): string {
  if (repositoryId === undefined) return RECEIPTS_PREFIX;
  assertRepositoryId(repositoryId);
  if (environment === undefined) return `${RECEIPTS_PREFIX}${repositoryId}/`;
  assertEnvironment(environment);
  return `${RECEIPTS_PREFIX}${repositoryId}/${environment}/`;
}

/** The address a key stands for, or null for anything that is not a receipt key (left alone). */
export function parseReceiptKey(key: string): ReceiptAddress | null {
  const path = receiptPath(key);
  if (path === null) return null;
  const first = path.indexOf("/");
  const second = path.indexOf("/", first + 1);
  if (first <= 0 || second <= first + 1) return null;
  const repository = path.slice(0, first);
  const environment = path.slice(first + 1, second);
  const scope = path.slice(second + 1);
  if (!REPOSITORY_SEGMENT.test(repository) || !isValidEnvironment(environment) || !isValidScope(scope)) {
    return null;
  }
  return { repositoryId: Number(repository), environment, scope };
}

function receiptPath(key: string): string | null {
  if (!key.startsWith(RECEIPTS_PREFIX) || !key.endsWith(SUFFIX)) return null;
  return key.slice(RECEIPTS_PREFIX.length, -SUFFIX.length);
}
