import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import { SecretRegistry } from "../../../shared/secrets";
import {
  epochSecondsResetHeader,
  type ProviderHttpSpec,
  providerJson,
  providerRequest,
  type TokenSource,
  withAccessToken,
} from "../../../workers/adapters/http";
import type { RequestBudget } from "../../../workers/adapters/http/provider-budget";
import { LeaseLostOnRead } from "../../../workers/adapters/http/provider-error";
import { StepClock } from "../../helpers/clock";

const spec: ProviderHttpSpec = {
  provider: "acme",
  retryAfterMs: epochSecondsResetHeader("x-ratelimit-reset"),
  describeError: (body) =>
    typeof body === "object" && body !== null
      ? { message: (body as { message?: string }).message, code: (body as { code?: string }).code }
      : { message: String(body) },
};

/** A fetch that answers from a script, one response per call, and counts calls. */
function scripted(...responses: Array<() => Response>) {
  const calls: Request[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push(new Request(input, init));
    const next = responses.shift();
    if (!next) throw new Error("script exhausted");
    return next();
  }) as typeof fetch;
  return { fetcher, calls };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });

function context(fetcher: typeof fetch, clock = new StepClock(1_000_000)) {
  const secrets = new SecretRegistry();
  secrets.register("s3cr3t-value");
  return { fetch: fetcher, clock, secrets };
}

/** An attempt whose answer never came: the connection broke after the request may have landed. */
const lostAnswer = (() => {
  throw new Error("connection reset");
}) as () => Response;

/** A write with a precondition (GCS's ifMetagenerationMatch): its 412 is an answer the caller reads. */
const conditionalPatch = {
  method: "PATCH",
  url: "https://a.test/x?ifMatch=7",
  precondition: 412,
  accept: [412],
} as const;

async function rejection(promise: Promise<unknown>): Promise<SponsonError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SponsonError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("providerRequest", () => {
  it("waits until the 429's reset time, then succeeds", async () => {
    const clock = new StepClock(1_000_000);
    const { fetcher, calls } = scripted(
      json(429, { message: "slow down" }, { "x-ratelimit-reset": "1003" }),
      json(200, { ok: true }),
    );
    const res = await providerRequest(context(fetcher, clock), spec, {
      method: "GET",
      url: "https://a.test/x",
    });
    expect(res.status).toBe(200);
    expect(calls).toHaveLength(2);
    expect(clock.sleeps).toEqual([3_000]);
  });

  it("backs off exponentially on 5xx and gives up after the attempts with the provider's message", async () => {
    const clock = new StepClock();
    const { fetcher, calls } = scripted(
      json(503, { message: "down" }),
      json(503, { message: "down" }),
      json(503, { message: "down" }),
      json(503, { message: "still down", code: "unavailable" }),
    );
    const err = await rejection(
      providerRequest(context(fetcher, clock), spec, { method: "GET", url: "https://a.test/x" }),
    );
    expect(calls).toHaveLength(4);
    expect(clock.sleeps).toEqual([500, 1_000, 2_000]);
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.message).toBe("acme: 503 still down");
    expect(err.detail).toMatchObject({
      provider: "acme",
      status: 503,
      providerCode: "unavailable",
      attempts: 4,
    });
  });

  it("does not make a wait that would exceed the total wait bound", async () => {
    const clock = new StepClock(1_000_000);
    const { fetcher, calls } = scripted(json(429, { message: "later" }, { "x-ratelimit-reset": "5000" }));
    const err = await rejection(
      providerRequest(context(fetcher, clock), spec, { method: "GET", url: "https://a.test/x" }),
    );
    expect(calls).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(err.detail).toMatchObject({ status: 429 });
  });

  it("does not retry a 4xx other than 429, and redacts registered secrets from the message", async () => {
    const { fetcher, calls } = scripted(
      json(400, { message: "bad secret s3cr3t-value", code: "s3cr3t-value" }),
    );
    const err = await rejection(
      providerRequest(context(fetcher), spec, { method: "POST", url: "https://a.test/x", json: {} }),
    );
    expect(calls).toHaveLength(1);
    expect(err.message).toBe("acme: 400 bad secret [redacted]");
    expect(JSON.stringify(err.toInfo())).not.toContain("s3cr3t-value");
  });

  it("retries a network error and reports it when it persists", async () => {
    const failing = (() => {
      throw new Error("connection reset");
    }) as () => Response;
    const { fetcher } = scripted(failing, failing);
    const err = await rejection(
      providerRequest(context(fetcher), spec, {
        method: "GET",
        url: "https://a.test/x",
        retry: { maxAttempts: 2 },
      }),
    );
    expect(err.message).toBe("acme: network error connection reset");
  });

  it("returns an accepted non-2xx status to the caller instead of failing", async () => {
    const { fetcher } = scripted(json(404, { message: "none" }));
    const res = await providerRequest(context(fetcher), spec, {
      method: "GET",
      url: "https://a.test/x",
      accept: [404],
    });
    expect(res.status).toBe(404);
  });

  it("a precondition refusal after an unanswered attempt is an unknown outcome, not a refusal", async () => {
    for (const first of [lostAnswer, json(503, { message: "backend error" })]) {
      const { fetcher, calls } = scripted(first, json(412, { message: "conditionNotMet" }));
      const err = await rejection(providerRequest(context(fetcher), spec, conditionalPatch));
      expect(calls).toHaveLength(2);
      expect(err.detail).toMatchObject({ status: 412, outcome: "unknown", attempts: 2 });
      expect(err.message).toContain("may have landed");
    }
    // Refused on its first attempt, it wrote nothing: the caller gets the 412 to decide again.
    const { fetcher } = scripted(json(412, { message: "conditionNotMet" }));
    const res = await providerRequest(context(fetcher), spec, conditionalPatch);
    expect(res.status).toBe(412);
  });

  it("after an unanswered attempt of a conditional write, its final refusal is an unknown outcome: a 401 that a token refresh would retry too", async () => {
    const { fetcher, calls } = scripted(lostAnswer, json(401, { message: "token revoked" }));
    const err = await rejection(providerRequest(context(fetcher), spec, conditionalPatch));
    expect(calls).toHaveLength(2);
    expect(err.detail).toMatchObject({ status: 401, outcome: "unknown" });
    // A read (a GET) or a request that changes nothing (a token exchange, a read sent as a POST:
    // marked `read`) keeps its plain answer.
    for (const req of [{ method: "GET" }, { method: "POST", read: true }] as const) {
      const plain = scripted(lostAnswer, json(401, { message: "token revoked" }));
      const refused = await rejection(
        providerRequest(context(plain.fetcher), spec, { ...req, url: "https://a.test/oauth/token" }),
      );
      expect(refused.detail).toMatchObject({ status: 401 });
      expect(refused.detail?.outcome).toBeUndefined();
    }
  });

  it("after an unanswered attempt of an unconditional write, its final refusal is an unknown outcome too: the attempt may still land", async () => {
    const pastTheBudget = { "x-ratelimit-reset": String(1_000 + 3_600) };
    for (const method of ["PATCH", "PUT", "DELETE", "POST"] as const) {
      for (const refusal of [
        json(429, { message: "slow down" }, pastTheBudget),
        json(400, { message: "bad request" }),
        json(401, { message: "token revoked" }),
      ]) {
        const { fetcher, calls } = scripted(lostAnswer, refusal);
        const err = await rejection(
          providerRequest(context(fetcher), spec, { method, url: "https://a.test/x" }),
        );
        expect(calls).toHaveLength(2);
        expect(err.detail, `${method} ${err.message}`).toMatchObject({ outcome: "unknown", attempts: 2 });
      }
    }
    // Control: refused on its first attempt, the write never landed: a plain refusal.
    const { fetcher } = scripted(json(400, { message: "bad request" }));
    const err = await rejection(
      providerRequest(context(fetcher), spec, { method: "PATCH", url: "https://a.test/x" }),
    );
    expect(err.detail).toMatchObject({ status: 400 });
    expect(err.detail?.outcome).toBeUndefined();
  });

  it("a 401 whose write may have landed is not sent again with a fresh token: the retry would meet the write's own landing", async () => {
    let bought = 0;
    const source: TokenSource = {
      endpoint: "https://a.test/oauth/token",
      clientId: "c",
      clientSecret: "s3cr3t-value",
      fetchToken: async () => ({ accessToken: `token-${++bought}`, expiresInSeconds: 3600 }),
    };
    const ctx = { ...context(scripted().fetcher), isolateCache: false as const };
    const sent: string[] = [];
    const unknown = new SponsonError("PROVIDER_ERROR", "no answer, then 401", {
      status: 401,
      outcome: "unknown",
    });
    const err = await rejection(
      withAccessToken(ctx, source, async (token) => {
        sent.push(token);
        throw unknown;
      }),
    );
    expect(err).toBe(unknown);
    expect(sent).toEqual(["token-1"]);
    // A plain 401 is still retried once with a new token.
    const plain = new SponsonError("PROVIDER_ERROR", "401", { status: 401 });
    const again: string[] = [];
    await rejection(
      withAccessToken(ctx, source, async (token) => {
        again.push(token);
        throw plain;
      }),
    );
    expect(again).toEqual(["token-2", "token-3"]);
  });

  it("tells the context's observer of every write attempt that may have landed, also when a later attempt succeeds", async () => {
    const cases: Array<[string, () => Response, number]> = [
      ["no answer", lostAnswer, 1],
      ["a 5xx", json(503, { message: "backend error" }), 1],
      // A 429 is the provider's answer that it did nothing.
      ["a 429", json(429, { message: "slow down" }), 0],
    ];
    for (const [what, first, told] of cases) {
      let unanswered = 0;
      const { fetcher, calls } = scripted(first, json(200, { ok: true }));
      const res = await providerRequest(
        { ...context(fetcher), onUnansweredWrite: () => unanswered++ },
        spec,
        { method: "PATCH", url: "https://a.test/x", json: {} },
      );
      expect(res.status).toBe(200);
      expect(calls).toHaveLength(2);
      expect(unanswered, what).toBe(told);
    }
    // A read (a GET) or a request that changes nothing (a token exchange, marked `read`) is never
    // reported: nothing it sent can land.
    for (const req of [{ method: "GET" }, { method: "POST", read: true }] as const) {
      let unanswered = 0;
      const { fetcher } = scripted(lostAnswer, json(503, {}), json(200, { ok: true }));
      await providerRequest({ ...context(fetcher), onUnansweredWrite: () => unanswered++ }, spec, {
        ...req,
        url: "https://a.test/oauth/token",
      });
      expect(unanswered, req.method).toBe(0);
    }
  });

  it("tells the context of each write attempt the provider accepted, never of a refusal or a read", async () => {
    const cases: Array<[string, Array<() => Response>, Record<string, unknown>, number]> = [
      ["a 2xx", [json(200, { ok: true })], { method: "POST" }, 1],
      ["a status the caller accepts", [json(404, {})], { method: "DELETE", accept: [404] }, 1],
      ["a refusal", [json(400, { message: "bad url" })], { method: "POST" }, 0],
      ["a read", [json(200, { ok: true })], { method: "GET" }, 0],
      ["a token exchange", [json(200, { ok: true })], { method: "POST", read: true }, 0],
    ];
    for (const [what, answers, req, told] of cases) {
      let accepted = 0;
      const { fetcher } = scripted(...answers);
      await providerRequest({ ...context(fetcher), onWriteAccepted: () => accepted++ }, spec, {
        ...(req as { method: "POST" }),
        url: "https://a.test/x",
      }).catch(() => null);
      expect(accepted, what).toBe(told);
    }
  });

  it("tells the observer of a write still in flight at the lease deadline, not of one refused before it was sent", async () => {
    for (const [thrown, told] of [
      [new SponsonError("LOCK_LOST", "still unanswered at the lease deadline", { outcome: "unknown" }), 1],
      [new SponsonError("LOCK_LOST", "lease lost", { lock: "k" }), 0],
    ] as const) {
      let unanswered = 0;
      const fetcher = (async () => {
        throw thrown;
      }) as typeof fetch;
      const err = await rejection(
        providerRequest({ ...context(fetcher), onUnansweredWrite: () => unanswered++ }, spec, {
          method: "PATCH",
          url: "https://a.test/x",
        }),
      );
      expect(err).toBe(thrown);
      expect(unanswered).toBe(told);
    }
  });

  it("a request that changes nothing, lost with the lease (in flight at its deadline, or refused past it), is a plain lost lease: never 'may have landed'", async () => {
    const inFlight = new SponsonError(
      "LOCK_LOST",
      "provider request still unanswered at the lease deadline: it may have landed",
      {
        outcome: "unknown",
      },
    );
    const refusedPast = new SponsonError("LOCK_LOST", "lease on k lost: no renewal succeeded", { lock: "k" });
    for (const thrown of [inFlight, refusedPast]) {
      for (const req of [{ method: "GET" }, { method: "POST", read: true }] as const) {
        let unanswered = 0;
        const fetcher = (async () => {
          throw thrown;
        }) as typeof fetch;
        const err = await rejection(
          providerRequest({ ...context(fetcher), onUnansweredWrite: () => unanswered++ }, spec, {
            ...req,
            url: "https://a.test/oauth/token",
          }),
        );
        const what = `${req.method} ${thrown.message}`;
        expect(err.code, what).toBe("LOCK_LOST");
        expect(err, what).toBeInstanceOf(LeaseLostOnRead);
        expect(err.detail?.outcome, what).toBeUndefined();
        expect(err.message, what).not.toContain("may have landed");
        expect(unanswered, what).toBe(0);
      }
    }
  });

  it("a write's final 5xx or network error is an unknown outcome (the attempts may have landed); a read's is not", async () => {
    const down = json(503, { message: "down" });
    for (const failing of [down, lostAnswer]) {
      const write = scripted(failing, failing);
      const err = await rejection(
        providerRequest(context(write.fetcher), spec, {
          method: "PATCH",
          url: "https://a.test/x",
          retry: { maxAttempts: 2 },
        }),
      );
      expect(err.detail, err.message).toMatchObject({ outcome: "unknown", attempts: 2 });
      for (const req of [{ method: "GET" }, { method: "POST", read: true }] as const) {
        const read = scripted(failing, failing);
        const plain = await rejection(
          providerRequest(context(read.fetcher), spec, {
            ...req,
            url: "https://a.test/oauth/token",
            retry: { maxAttempts: 2 },
          }),
        );
        expect(plain.detail?.outcome, `${req.method} ${plain.message}`).toBeUndefined();
      }
    }
  });

  it("providerJson refuses a body that does not match the schema", async () => {
    const { fetcher } = scripted(json(200, { items: "not-an-array" }));
    const err = await rejection(
      providerJson(
        context(fetcher),
        spec,
        { method: "GET", url: "https://a.test/x" },
        z.object({ items: z.array(z.string()) }),
      ),
    );
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.message).toContain("unexpected response from GET /x");
  });
});

describe('a provider budget around the attempts (docs/design.md, "Write budgets")', () => {
  /** A budget that grants `grants` attempts, then refuses as a spent budget does; records drains. */
  function budget(grants: number) {
    const drained: Array<number | undefined> = [];
    let left = grants;
    const b: RequestBudget = {
      before: async () => {
        if (left-- > 0) return;
        throw new SponsonError("BUDGET_EXHAUSTED", "acme: the budget allows this call only later", {
          retryAfterSeconds: 3,
          sent: false,
        });
      },
      throttled: async (_req, _now, retryAtMs) => {
        drained.push(retryAtMs);
        return true;
      },
      section: () => b,
    };
    return { b, drained };
  }

  it("a 429 drains the budget until its reset; the retry waits there, not in a backoff of its own", async () => {
    const { fetcher, calls } = scripted(
      json(429, { message: "slow down" }, { "x-ratelimit-reset": "1003" }),
      json(200, {}),
    );
    const { b, drained } = budget(2);
    const ctx = { ...context(fetcher), budget: b };
    await providerRequest(ctx, spec, { method: "GET", url: "https://a.test/x" });
    expect(calls).toHaveLength(2);
    expect(drained).toEqual([1_003_000]);
    expect(ctx.clock.sleeps).toEqual([]);
  });

  it("a write refused by the budget after an attempt that got no answer: its outcome is unknown", async () => {
    const { fetcher, calls } = scripted(lostAnswer);
    const ctx = { ...context(fetcher), budget: budget(1).b };
    const err = await providerRequest(ctx, spec, { method: "PATCH", url: "https://a.test/x", json: {} }).then(
      () => undefined,
      (e: unknown) => e as SponsonError,
    );
    expect(calls).toHaveLength(1);
    expect(err?.code).toBe("BUDGET_EXHAUSTED");
    expect(err?.detail).toMatchObject({ outcome: "unknown" });
    expect(err?.detail).not.toHaveProperty("sent");
  });

  it("control: refused before any attempt, nothing was sent and it says so", async () => {
    const { fetcher, calls } = scripted();
    const ctx = { ...context(fetcher), budget: budget(0).b };
    const err = await providerRequest(ctx, spec, { method: "PATCH", url: "https://a.test/x", json: {} }).then(
      () => undefined,
      (e: unknown) => e as SponsonError,
    );
    expect(calls).toHaveLength(0);
    expect(err?.detail).toMatchObject({ sent: false });
    expect(err?.detail).not.toHaveProperty("outcome");
  });
});
