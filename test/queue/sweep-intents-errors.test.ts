/**
 * The sweep's intent pass goes on past a scope whose recovery fails in an unexpected way (not a
 * SponsonError: a bug, a runtime error): the other scopes are still recovered, and the report
 * names the one that failed. One bad scope must not leave every later scope's intents unresolved.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../shared/env";
import { emptyReceipt, type Intent, type Receipt } from "../../shared/schemas/receipt";
import type { RunResult } from "../../shared/schemas/run";
import type { ReceiptStore, ScopeAddress } from "../../workers/receipts/receipt-store";
import { resolveStaleIntents } from "../../workers/sweep/stale-intents";
import { redactingErrorLog } from "../../workers/wiring/wire";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

const STALE_AT = 1_000;

function intent(scope: string): Intent {
  return {
    action: "create",
    line: "callback",
    op: "auth0.callbackUrl",
    connection: "auth0-tenant",
    params: { client: "app", url: `https://${scope}.example.com/cb` },
    key: `https://${scope}.example.com/cb`,
    parent: "auth0:tenant:client:app",
    runId: `run-of-${scope}`,
    at: STALE_AT,
  };
}

/** Receipts in memory, one stale intent per scope; `recover` empties a scope's intents. */
function world(scopes: string[]) {
  const receipts = new Map<string, Receipt>(
    scopes.map((scope) => [
      scope,
      { ...emptyReceipt(DEFAULT_REPOSITORY, "preview", scope), intents: [intent(scope)] },
    ]),
  );
  const store = {
    listScopes: async () =>
      scopes.map((scope) => ({
        repositoryId: DEFAULT_REPOSITORY.id,
        environment: "preview",
        scope,
        entries: 0,
        uploadedAt: 0,
      })),
    read: async (address: ScopeAddress) => ({
      receipt: receipts.get(address.scope) as Receipt,
      etag: "e",
    }),
  } as unknown as ReceiptStore;
  return { store, receipts };
}

describe("the sweep's intent pass and unexpected errors", () => {
  it("a recovery that throws a plain error is reported; the scopes after it are still recovered", async () => {
    const { store, receipts } = world(["pr-1", "pr-2", "pr-3"]);
    const recovered: string[] = [];
    const report = await resolveStaleIntents(
      {
        store,
        repository: () => DEFAULT_REPOSITORY,
        logError: () => {},
        recover: async (address) => {
          if (address.scope === "pr-1") throw new TypeError("Cannot read properties of undefined");
          recovered.push(address.scope);
          const r = receipts.get(address.scope) as Receipt;
          receipts.set(address.scope, { ...r, intents: [] });
          return { run: { status: "succeeded" } } as unknown as RunResult;
        },
      },
      { olderThan: STALE_AT + 1 },
    );
    expect(recovered).toEqual(["pr-2", "pr-3"]);
    expect(report.resolved).toBe(2);
    expect(report.detail).toContain(`${DEFAULT_REPOSITORY.name}:preview/pr-1 (1 left: internal error)`);
  });

  it("a receipt that cannot be read is reported; the other scopes are still recovered", async () => {
    const { store, receipts } = world(["pr-4", "pr-5"]);
    const reading = store.read.bind(store);
    store.read = async (address) => {
      if (address.scope === "pr-4") throw new Error("R2 is unavailable");
      return reading(address);
    };
    const report = await resolveStaleIntents(
      {
        store,
        repository: () => DEFAULT_REPOSITORY,
        logError: () => {},
        recover: async (address) => {
          const r = receipts.get(address.scope) as Receipt;
          receipts.set(address.scope, { ...r, intents: [] });
          return { run: { status: "succeeded" } } as unknown as RunResult;
        },
      },
      { olderThan: STALE_AT + 1 },
    );
    expect(report.resolved).toBe(1);
    expect(report.detail).toContain(`${DEFAULT_REPOSITORY.name}:preview/pr-4`);
  });

  it("an unexpected error's message goes through the redacting log, never raw to the console", async () => {
    const secret = "s3cr3t-value-of-a-connection-0123456789";
    const { store } = world(["pr-6"]);
    const logged: string[] = [];
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const log = redactingErrorLog({ ...env, SOME_CLIENT_SECRET: secret } as Env);
      await resolveStaleIntents(
        {
          store,
          repository: () => DEFAULT_REPOSITORY,
          logError: (m) => {
            logged.push(m);
            log(m);
          },
          recover: async () => {
            throw new Error(`the provider answered 401 for ${secret}`);
          },
        },
        { olderThan: STALE_AT + 1 },
      );
      expect(logged.join("\n")).toContain("pr-6");
      const printed = consoleError.mock.calls.flat().map(String).join("\n");
      expect(printed).toContain("pr-6");
      expect(printed).not.toContain(secret);
    } finally {
      consoleError.mockRestore();
    }
  });
});
