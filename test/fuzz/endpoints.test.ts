/**
 * Fuzzing every endpoint's body, headers and path (docs/design.md, "Errors"): whatever arrives,
 * the answer is a problem+json 4xx or a success — never a 500 — and a refused request changes no
 * receipt and no lock. Replay a failure with the seed and path fast-check prints.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { call, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";
import { bearer } from "../helpers/tokens";

/** The one connection configured for the fuzzed service: every outbound request must go to its host. */
const FUZZ_HOST = "fuzz-tenant.us.auth0.com";
const FUZZ_CONNECTION = registerConnection("fuzz-auth0", {
  type: "auth0",
  config: { domain: FUZZ_HOST, clientId: "fuzz-m2m" },
  secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
});
const outboundHosts = new Set<string>();
const app = testApp({
  engine: {
    wrapFetch: (inner) => (input, init) => {
      outboundHosts.add(new URL(new Request(input, init).url).host);
      return inner(input, init);
    },
  },
});
const RUNS = 60;
let nextScope = 900_000 + Math.floor(Math.random() * 50_000) * 10;
/** A scope of its own per request, so "a refusal changed nothing" is checked exactly. */
const freshScope = () => `pr-${++nextScope}`;
const ACTIONS = ["apply", "preview", "destroy", "rollback"] as const;

const jsonValue = fc.jsonValue({ maxDepth: 4 });
/** Lines of the current plan shape: real and unknown ops, the configured connection and others. */
const planLine = fc.record(
  {
    id: fc.oneof(fc.constantFrom("a", "b", "callback"), fc.string({ maxLength: 12 })),
    op: fc.constantFrom("auth0.callbackUrl", "auth0.webOrigin", "supabase.redirectUrl", "auth0.nope", "x"),
    connection: fc.constantFrom(FUZZ_CONNECTION, "missing", "", "../auth0", "fuzz-auth0 "),
    params: fc.dictionary(
      fc.constantFrom("client", "url", "project", "domain", "host"),
      fc.oneof(
        fc.constantFrom(
          "preview-app",
          "https://{scope}.preview.example.com/cb",
          "{nope}",
          "attacker.example.com",
        ),
        fc.string({ maxLength: 30 }),
      ),
    ),
    provider: fc.constantFrom("p", "auth0"),
  },
  { requiredKeys: ["id", "op", "connection", "params"] },
);
const body = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc.constantFrom("{}", '{"wait":true}', '{"runId":"run-x"}', '{"wait":"yes"}', "[]", "null", ""),
  fc.string({ maxLength: 200 }),
  fc
    .record({
      plan: fc.oneof(
        jsonValue,
        fc.record({ version: fc.constant(1), providers: jsonValue, lines: jsonValue }),
        fc.record(
          {
            version: fc.constantFrom(1, 2, 2, 2),
            lines: fc.array(planLine, { maxLength: 3 }),
            providers: fc.constantFrom(
              {},
              {
                p: {
                  type: "auth0",
                  domain: "attacker.example.com",
                  clientSecret: { secret: "SERVICE_SIGNING_KEY" },
                },
              },
            ),
          },
          { requiredKeys: ["version", "lines"] },
        ),
      ),
    })
    .map((v) => JSON.stringify(v)),
);
const contentType = fc.constantFrom(
  "application/json",
  "text/plain",
  "application/json; charset=utf-8",
  "",
  "multipart/form-data",
);
const authorization = fc.oneof(
  { arbitrary: fc.constant("admin"), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      "Bearer ",
      "Bearer x.y.z",
      "Basic Zm9vOmJhcg==",
      "Bearer eyJhbGciOiJub25lIn0.e30.",
    ),
    weight: 1,
  },
  { arbitrary: fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`), weight: 1 },
);
const segment = fc.oneof(
  fc.constantFrom("pr-1", "main", "branch-x", "preview", "_locks", "..", "%2F", "pr-0", "pr-01", "PR-1"),
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
);

async function send(method: string, path: string, payload: string | undefined, type: string, auth: string) {
  const headers: Record<string, string> = auth === "admin" ? await bearer("admin") : { authorization: auth };
  if (type) headers["content-type"] = type;
  return call(app, method, path, payload, headers);
}

async function expectProblemOrSuccess(res: Response) {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await res.json()) as { code?: string; status?: number };
    expect(typeof problem.code).toBe("string");
    expect(problem.status).toBe(res.status);
  } else {
    await res.body?.cancel();
  }
}

async function untouched(scope: string) {
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  expect((await lockStub(env, key).read({ key })).lastToken).toBe(0);
  expect((await new R2ReceiptStore(env.RECEIPTS).read(scopeAddress("preview", scope))).etag).toBeNull();
}

describe("fuzzed requests", () => {
  it.each(ACTIONS)(
    "POST /v1/scopes/preview/%s with any body, content type and token: never a 500, refusals change nothing",
    async (action) => {
      await fc.assert(
        fc.asyncProperty(body, contentType, authorization, async (payload, type, auth) => {
          const scope = freshScope();
          const res = await send("POST", `/v1/scopes/preview/${scope}/${action}`, payload, type, auth);
          await expectProblemOrSuccess(res);
          if (res.status >= 400) await untouched(scope);
          // Whatever the plan said, credentials only ever went to the configured connection's host.
          expect([...outboundHosts].filter((h) => h !== FUZZ_HOST)).toEqual([]);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it("any path segments on the scope, ledger and lock routes: never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        segment,
        segment,
        fc.constantFrom(...ACTIONS, "ledger"),
        async (environment, scope, action) => {
          const method = action === "ledger" ? "GET" : "POST";
          const payload = method === "POST" ? JSON.stringify({ plan: { version: 2, lines: [] } }) : undefined;
          await expectProblemOrSuccess(
            await send(
              method,
              `/v1/scopes/${environment}/${scope}/${action}`,
              payload,
              "application/json",
              "admin",
            ),
          );
          await expectProblemOrSuccess(await send("GET", `/v1/locks/${scope}`, undefined, "", "admin"));
          await expectProblemOrSuccess(
            await send("GET", `/v1/scopes?environment=${environment}`, undefined, "", "admin"),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("DELETE /v1/locks/{key} with any body: never a 500, and a held lock stays held unless the request was valid", async () => {
    const key = "scope:186853002/preview/pr-987655";
    const held = await lockStub(env, key).acquire({ key, holder: "run-fuzz", ttlMs: 600_000 });
    expect(held.ok).toBe(true);
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, type) => {
        const res = await send(
          "DELETE",
          `/v1/locks/${encodeURIComponent(key)}`,
          payload,
          type,
          "viewer-token-junk",
        );
        await expectProblemOrSuccess(res);
        expect(res.status).toBe(401);
        expect((await lockStub(env, key).read({ key })).held).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("POST /v1/webhooks/github with any body and headers: never a 500, and no scope state changes", async () => {
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.option(fc.string({ maxLength: 80 }).map((s) => `sha256=${s}`)),
        fc.option(fc.constantFrom("pull_request", "push", "ping", "")),
        async (payload, signature, event) => {
          const headers: Record<string, string> = {
            "content-type": "application/json",
            "x-github-delivery": crypto.randomUUID(),
          };
          if (signature) headers["x-hub-signature-256"] = signature;
          if (event !== null) headers["x-github-event"] = event;
          const res = await call(app, "POST", "/v1/webhooks/github", payload, {
            authorization: "",
            ...headers,
          });
          await expectProblemOrSuccess(res);
          expect(res.status).toBe(401);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
