/**
 * Where receipts live in R2 (DESIGN §8): `receipts/<environment>/<scope>.json`.
 * An environment never contains "/" (shared/lock-keys.ts), so the first segment after the prefix is
 * the environment and the rest — which may hold "/" for `branch-<name>` scopes — is the scope.
 */
import { SponsonError } from "../../shared/errors";
import { isValidEnvironment, isValidScope } from "../../shared/lock-keys";

export const RECEIPTS_PREFIX = "receipts/";
const SUFFIX = ".json";

export interface ReceiptAddress {
  environment: string;
  scope: string;
}

function assertEnvironment(environment: string): void {
  if (!isValidEnvironment(environment)) {
    throw new SponsonError("VALIDATION", `environment "${environment}" is not a valid environment name`);
  }
}

export function receiptKey(environment: string, scope: string): string {
  assertEnvironment(environment);
  if (!isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `scope "${scope}" must be pr-<n>, branch-<name> or main`);
  }
  return `${RECEIPTS_PREFIX}${environment}/${scope}${SUFFIX}`;
}

/** The listing prefix: one environment's receipts, or every receipt when none is given. */
export function receiptPrefix(environment?: string): string {
  if (environment === undefined) return RECEIPTS_PREFIX;
  assertEnvironment(environment);
  return `${RECEIPTS_PREFIX}${environment}/`;
}

/** The address a key stands for, or null for anything that is not a receipt key (left alone). */
export function parseReceiptKey(key: string): ReceiptAddress | null {
  if (!key.startsWith(RECEIPTS_PREFIX) || !key.endsWith(SUFFIX)) return null;
  const path = key.slice(RECEIPTS_PREFIX.length, -SUFFIX.length);
  const slash = path.indexOf("/");
  if (slash <= 0) return null;
  const environment = path.slice(0, slash);
  const scope = path.slice(slash + 1);
  if (!isValidEnvironment(environment) || !isValidScope(scope)) return null;
  return { environment, scope };
}
