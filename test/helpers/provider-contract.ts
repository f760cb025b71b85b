/**
 * The contract every list op keeps against its provider's emulator: create, idempotent
 * re-create, remove, remove of an absent item, drift, 401/403/404/429/5xx, and unrelated entries
 * preserved exactly. Each provider's contract test describes its subject and calls
 * `describeProviderContract`; provider-specific behaviour is tested next to it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../dev/emulators/transport";
import { SponsonError } from "../../shared/errors";
import { SecretRegistry } from "../../shared/secrets";
import type { OpContext, OpSpec, Params, ProviderAdapter } from "../../workers/adapters/op-spec";
import { StepClock } from "./clock";
import { configureHost } from "./emulators";

/**
 * Every provider call made through it, as "METHOD /path" (and the action, for AWS JSON protocols
 * that name it in X-Amz-Target: "POST / DescribeUserPoolClient"), and a copy of every response.
 */
export function recording(inner: typeof fetch) {
  const calls: string[] = [];
  const responses: Response[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const action = request.headers.get("x-amz-target")?.split(".").pop();
    calls.push(`${request.method} ${new URL(request.url).pathname}${action ? ` ${action}` : ""}`);
    const response = await inner(request);
    responses.push(response.clone());
    return response;
  }) as typeof fetch;
  return { fetcher, calls, responses };
}

export interface AdapterHarness {
  ctx: OpContext;
  clock: StepClock;
  calls: string[];
  responses: Response[];
}

/** An OpContext for `adapter` with `config` (resolved values), recording, on a fake clock. */
export function harness(adapter: ProviderAdapter, config: unknown, secretValues: string[]): AdapterHarness {
  const secrets = new SecretRegistry();
  for (const value of secretValues) secrets.register(value);
  const clock = new StepClock();
  const http = recording(providerFetch(env));
  const ctx: OpContext = { config: adapter.config.parse(config), fetch: http.fetcher, clock, secrets };
  return { ctx, clock, calls: http.calls, responses: http.responses };
}

export interface ContractFixture extends AdapterHarness {
  /** The line under test (its params name this fixture's provider object). */
  params: Params;
  /** Secret values of this fixture that must never appear in an error. */
  secrets: string[];
  /** The list the op edits, as the provider holds it now. */
  entries(): Promise<string[]>;
  /** The whole shared object as the provider holds it (for "preserved exactly"). */
  snapshot(): Promise<unknown>;
  /** Replaces the list behind the adapter's back (drift). */
  setEntries(entries: string[]): Promise<void>;
}

export type SetupFailure = "unauthenticated" | "forbidden" | "missing";

export interface ExpectedError {
  status: number;
  /** The provider's own message, exactly; a RegExp where it names a generated value. */
  message: string | RegExp;
  providerCode?: string;
}

export interface ContractSubject {
  provider: string;
  op: OpSpec;
  /** The entry the line under test manages. */
  item: string;
  /** Entries already in the list, which must survive every write byte-for-byte. */
  unrelated: string[];
  /** Emulator host answering the op's reads and writes (failures are injected there). */
  apiHost(fixture: ContractFixture): string;
  /** A fresh provider object holding `unrelated`; with `failure`, set up to refuse as named. */
  setup(failure?: SetupFailure): Promise<ContractFixture>;
  /** Where `forbidden` fails: some providers refuse the read, others only the write. */
  forbiddenOn: "read" | "write";
  /** `serverError`: what a 500 the emulator injects reads as, where the provider's text is known. */
  errors: Record<SetupFailure, ExpectedError> & { serverError?: ExpectedError };
  /** How long a 429 response asks to wait (from its headers), if at all. */
  rateLimitWaitMs(response: Response, nowMs: number): number | undefined;
  /** The status a throttled request is answered with, when not 429 (Cognito: 400). */
  throttleStatus?: number;
}

function expectProviderError(err: SponsonError, provider: string, want: ExpectedError): void {
  expect(err.code).toBe("PROVIDER_ERROR");
  expect(err.detail).toMatchObject({ provider, status: want.status });
  const text = err.message.slice(`${provider}: ${want.status} `.length);
  expect(err.message.startsWith(`${provider}: ${want.status} `)).toBe(true);
  if (typeof want.message === "string") expect(text).toBe(want.message);
  else expect(text).toMatch(want.message);
  if (want.providerCode) expect(err.detail?.providerCode).toBe(want.providerCode);
}

/** The SponsonError `promise` rejects with; anything else (or no rejection) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<SponsonError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SponsonError) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}

const isWriteCall = (call: string) =>
  !call.startsWith("GET ") && !call.includes("/token") && !/ (Describe|Get)[A-Za-z]*$/.test(call);

export function describeProviderContract(s: ContractSubject): void {
  const { op, item } = s;

  describe(`${op.name} contract against the ${s.provider} emulator`, () => {
    it("create adds the entry after the unrelated ones; inspect then says present", async () => {
      const f = await s.setup();
      const seen = await op.inspect(f.ctx, f.params);
      expect(seen.present).toBe(false);
      await op.create(f.ctx, f.params, seen);
      expect(await f.entries()).toEqual([...s.unrelated, item]);
      expect((await op.inspect(f.ctx, f.params)).present).toBe(true);
    });

    it("re-creating an entry that is already there sends no write", async () => {
      const f = await s.setup();
      await op.create(f.ctx, f.params, await op.inspect(f.ctx, f.params));
      const seen = await op.inspect(f.ctx, f.params);
      const before = f.calls.length;
      await op.create(f.ctx, f.params, seen);
      expect(f.calls.slice(before)).toEqual([]);
      expect(await f.entries()).toEqual([...s.unrelated, item]);
    });

    it("remove drops only that entry and leaves the object exactly as it was before the create", async () => {
      const f = await s.setup();
      const original = await f.snapshot();
      await op.create(f.ctx, f.params, await op.inspect(f.ctx, f.params));
      await op.remove(f.ctx, f.params, await op.inspect(f.ctx, f.params));
      expect(await f.entries()).toEqual(s.unrelated);
      expect(await f.snapshot()).toEqual(original);
    });

    it("removing an absent entry sends no write", async () => {
      const f = await s.setup();
      const seen = await op.inspect(f.ctx, f.params);
      expect(seen.present).toBe(false);
      await op.remove(f.ctx, f.params, seen);
      expect(f.calls.filter(isWriteCall)).toEqual([]);
      expect(await f.entries()).toEqual(s.unrelated);
    });

    it("drift: an entry removed behind our back is reported absent, and created again", async () => {
      const f = await s.setup();
      await op.create(f.ctx, f.params, await op.inspect(f.ctx, f.params));
      await f.setEntries(s.unrelated);
      const seen = await op.inspect(f.ctx, f.params);
      expect(seen.present).toBe(false);
      await op.create(f.ctx, f.params, seen);
      expect(await f.entries()).toEqual([...s.unrelated, item]);
    });

    it(`bad credentials: PROVIDER_ERROR ${s.errors.unauthenticated.status} without any secret in it`, async () => {
      const f = await s.setup("unauthenticated");
      const err = await failure(op.inspect(f.ctx, f.params));
      expectProviderError(err, s.provider, s.errors.unauthenticated);
      const info = JSON.stringify(err.toInfo());
      for (const secret of f.secrets) expect(info).not.toContain(secret);
    });

    it(`no permission: PROVIDER_ERROR ${s.errors.forbidden.status} and nothing written`, async () => {
      const f = await s.setup("forbidden");
      const want = s.errors.forbidden;
      const attempt =
        s.forbiddenOn === "read"
          ? op.inspect(f.ctx, f.params)
          : op.inspect(f.ctx, f.params).then((seen) => op.create(f.ctx, f.params, seen));
      const err = await failure(attempt);
      expectProviderError(err, s.provider, want);
      expect(await f.entries()).toEqual(s.unrelated);
    });

    it(`a provider object that does not exist: PROVIDER_ERROR ${s.errors.missing.status}`, async () => {
      const f = await s.setup("missing");
      const want = s.errors.missing;
      const err = await failure(op.inspect(f.ctx, f.params));
      expectProviderError(err, s.provider, want);
    });

    it("a 429 on the write is retried after the wait the provider asked for", async () => {
      const f = await s.setup();
      const seen = await op.inspect(f.ctx, f.params);
      await configureHost(s.apiHost(f), { failures: [{ status: 429, count: 1, on: "write" }] });
      const startMs = f.clock.now();
      await op.create(f.ctx, f.params, seen);
      const limited = f.responses.find((r) => r.status === (s.throttleStatus ?? 429));
      expect(limited).toBeDefined();
      const hint = s.rateLimitWaitMs(limited as Response, startMs);
      expect(f.clock.sleeps).toEqual([hint !== undefined && hint > 0 ? Math.ceil(hint) : 500]);
      expect(f.calls.filter(isWriteCall)).toHaveLength(2);
      expect(await f.entries()).toEqual([...s.unrelated, item]);
    });

    it("5xx: reads are retried with backoff; a write that keeps failing ends after 4 attempts", async () => {
      const f = await s.setup();
      const host = s.apiHost(f);
      await configureHost(host, { failures: [{ status: 503, count: 2, on: "read" }] });
      const seen = await op.inspect(f.ctx, f.params);
      expect(seen.present).toBe(false);
      expect(f.clock.sleeps).toEqual([500, 1_000]);

      await configureHost(host, { failures: [{ status: 500, count: 100, on: "write" }] });
      const err = await failure(op.create(f.ctx, f.params, seen));
      await configureHost(host, {});
      expect(err.code).toBe("PROVIDER_ERROR");
      expect(err.detail).toMatchObject({ provider: s.provider, status: 500, attempts: 4 });
      if (s.errors.serverError) expectProviderError(err, s.provider, s.errors.serverError);
      expect(f.calls.filter(isWriteCall)).toHaveLength(4);
      expect(f.clock.sleeps).toEqual([500, 1_000, 500, 1_000, 2_000]);
      expect(await f.entries()).toEqual(s.unrelated);
    });
  });
}
