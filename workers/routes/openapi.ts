/**
 * `GET /v1/openapi.json` (docs/api.md): the OpenAPI 3.1 document, generated from the zod schemas
 * the routes validate with. Public, as API tooling expects (workers/auth/route-access.ts). It is built
 * from the registry the OpenAPI sub-apps merge into, once per app (the registry is complete when
 * the app is built; building the document takes tens of milliseconds of CPU); a route added with
 * plain `app.get()` is not in it, and test/openapi/ fails on that.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { BEARER_SCHEME, bearerSecurity, publicSecurity } from "../http/openapi-problems";

export const OPENAPI_PATH = "/v1/openapi.json";

/** Each app's document, built at its first request. */
const documents = new WeakMap<object, unknown>();

export function mountOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A GitHub Actions OIDC token (audience SPONSON_AUDIENCE) or a service token signed by the " +
      "service's key (roles ci, viewer, admin)",
  });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: OPENAPI_PATH,
    operationId: "openapi",
    tags: ["meta"],
    summary: "This document (public)",
    security: publicSecurity,
    responses: {
      200: {
        description: "The OpenAPI 3.1 document",
        content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
      },
    },
  });
  const config: Parameters<typeof app.getOpenAPI31Document>[0] = {
    openapi: "3.1.0",
    info: {
      title: "Sponson Edge",
      version: "1.0.0",
      description:
        "Lock service and apply engine for entries that preview environments add to shared provider " +
        "lists. Every error is application/problem+json with a stable `code`.",
    },
    security: bearerSecurity,
    tags: [
      { name: "scopes", description: "Apply, preview, destroy, rollback and ledgers of one scope" },
      { name: "locks", description: "Held scope and parent locks" },
      { name: "webhooks", description: "Receivers authenticated by their own signatures" },
      { name: "health", description: "Liveness" },
      { name: "meta", description: "This document" },
    ],
  };
  app.get(OPENAPI_PATH, (c) => {
    let document = documents.get(app);
    if (document === undefined) {
      document = app.getOpenAPI31Document(config);
      documents.set(app, document);
    }
    return c.json(document);
  });
}
