import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { isSponsonError, type SponsonError } from "../../shared/errors";
import type { LedgerEntry, Receipt } from "../../shared/schemas/receipt";
import { emptyReceipt } from "../../shared/schemas/receipt";
import { R2ReceiptStore, type R2ReceiptStoreOptions } from "../../workers/receipts/r2-receipt-store";
import type { ScopeAddress } from "../../workers/receipts/receipt-store";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

/** The repository these tests' receipts belong to (the store needs no configuration). */
export const TEST_REPO = DEFAULT_REPOSITORY;

/** The address of one of TEST_REPO's scopes. */
export function at(environment: string, scope: string): ScopeAddress {
  return { repository: TEST_REPO, environment, scope };
}

/** A new environment name per test, so tests sharing the bucket never see each other's receipts. */
export function freshEnvironment(): string {
  return `t${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

export function store(options: R2ReceiptStoreOptions = {}): R2ReceiptStore {
  return new R2ReceiptStore(env.RECEIPTS, options);
}

export function ledgerEntry(line: string, key: string): LedgerEntry {
  return {
    line,
    op: "auth0.callbackUrl",
    provider: { type: "auth0" },
    params: { url: key },
    key,
    parent: "auth0:tenant:client:abc",
    runId: "run-1",
    createdAt: 1_700_000_000_000,
  };
}

export function receiptWith(environment: string, scope: string, keys: string[]): Receipt {
  return {
    ...emptyReceipt(TEST_REPO, environment, scope),
    ledger: keys.map((k, i) => ledgerEntry(`line-${i}`, k)),
  };
}

/** The SponsonError a promise rejects with (fails the test if it resolves or throws anything else). */
export async function rejection(promise: Promise<unknown>): Promise<SponsonError> {
  const outcome = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(isSponsonError(outcome), `expected a SponsonError, got ${String(outcome)}`).toBe(true);
  return outcome as SponsonError;
}
