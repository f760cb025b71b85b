import { describe, expect, it } from "vitest";
import { describeProviderContract, failure } from "../../helpers/provider-contract";
import { CLERK_HOST, clerkInstanceWith, clerkOp } from "./clerk-instance";

const ORIGINS = ["http://localhost:3000", "capacitor://localhost"];
const ITEM = "https://pr-1.preview.example.com";
const op = clerkOp("clerk.allowedOrigin");

describeProviderContract({
  provider: "clerk",
  op,
  item: ITEM,
  unrelated: ORIGINS,
  apiHost: () => CLERK_HOST,
  forbiddenOn: "read",
  errors: {
    unauthenticated: {
      status: 401,
      message: "The provided Clerk Secret Key is invalid. Make sure that your Clerk Secret Key is correct.",
      providerCode: "clerk_key_invalid",
    },
    forbidden: {
      status: 403,
      message: "You are not authorized to perform this request",
      providerCode: "authorization_invalid",
    },
    missing: {
      status: 404,
      message: /^instance ins_other\w+ not found: the connection's secret key is instance ins_\w+'s$/,
    },
    serverError: {
      status: 500,
      message:
        "There was an internal error on our servers. We've been notified and are working on fixing it.",
      providerCode: "internal_clerk_error",
    },
  },
  rateLimitWaitMs: (response) => Number(response.headers.get("retry-after")) * 1000,
  async setup(failure) {
    const c = await clerkInstanceWith({ allowedOrigins: ORIGINS }, failure);
    return {
      ...c,
      params: { origin: ITEM },
      secrets: [c.secretKey],
      entries: async () => (await c.stored())?.allowed_origins ?? [],
      snapshot: c.stored,
      setEntries: c.setOrigins,
    };
  },
});

describe("clerk.allowedOrigin", () => {
  it("lockOn is the instance the connection names, never the key", () => {
    const identity = op.lockOn({ origin: ITEM }, { type: "clerk", instance: "ins_abc123" });
    expect(identity).toBe("clerk:instance:ins_abc123");
    expect(() => op.lockOn({ origin: ITEM }, { type: "clerk" })).toThrow(/instance/);
  });

  it("PATCH /v1/instance carries allowed_origins alone, the whole array", async () => {
    const c = await clerkInstanceWith({ allowedOrigins: ORIGINS });
    const sent: unknown[] = [];
    const inner = c.ctx.fetch;
    c.ctx.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "PATCH") sent.push(await request.clone().json());
      return inner(request);
    }) as typeof fetch;
    await op.create(c.ctx, { origin: ITEM }, await op.inspect(c.ctx, { origin: ITEM }));
    expect(sent).toEqual([{ allowed_origins: [...ORIGINS, ITEM] }]);
    expect(c.calls).toEqual(["GET /v1/instance", "PATCH /v1/instance"]);
  });

  it("an instance with no allowed origins yet (null) takes the first one", async () => {
    const c = await clerkInstanceWith({ allowedOrigins: null });
    await op.create(c.ctx, { origin: ITEM }, await op.inspect(c.ctx, { origin: ITEM }));
    expect((await c.stored())?.allowed_origins).toEqual([ITEM]);
  });

  it("a 422 from Clerk is a PROVIDER_ERROR with Clerk's long message and code", async () => {
    const c = await clerkInstanceWith({ allowedOrigins: ORIGINS });
    const bad = "https://pr-1.preview.example.com";
    const seen = await op.inspect(c.ctx, { origin: bad });
    // An origin the emulator refuses, sent behind the params check (a provider rule the schema does not know).
    const err = await failure(
      clerkOp("clerk.allowedOrigin").batch?.write(c.ctx, { origin: bad }, seen.state, () => ({
        kind: "clerk.instance",
        object: "instance",
        obj: { id: c.instance, allowed_origins: ["not an origin"] },
      })) ?? Promise.resolve(),
    );
    expect(err.message).toBe(
      "clerk: 422 allowed_origins must be a list of origins such as https://example.com",
    );
    expect(err.detail).toMatchObject({ status: 422, providerCode: "form_param_format_invalid" });
    expect((await c.stored())?.allowed_origins).toEqual(ORIGINS);
  });

  it("params take an origin only: no path, no whitespace", () => {
    for (const origin of ["https://a.example.com/path", "https://a b.example.com", "a.example.com"])
      expect(op.params.safeParse({ origin }).success).toBe(false);
    expect(op.params.safeParse({ origin: "chrome-extension://abcdef" }).success).toBe(true);
  });
});
