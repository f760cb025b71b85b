/**
 * `POST /v1/adopt` (admin): the entries already on one list, matched to pull requests' scopes by
 * patterns, shown (the default, a dry run) or adopted (`apply`), and closed pull requests' entries
 * removed (`removeClosed`). docs/design.md, "Adopting existing entries". Reads the provider with the
 * service's credentials and writes ownership and receipts: admin only, by the route table
 * (workers/auth/route-access.ts: a route it does not list needs admin to write) and here again.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { adoptionBodySchema, adoptionResultSchema } from "../../shared/schemas/adoption";
import type { AppEnv } from "../app-env";
import { adoptionAuditTrail } from "../audit/adoption-audit";
import { resolveRepository } from "../auth/resolve-repository";
import { requireRole } from "../auth/route-access";
import { configFromEnv } from "../config/config";
import type { Engine } from "../engine/engine";
import {
  AUTH_CODES,
  BODY_CODES,
  bearerSecurity,
  problemResponses,
  withOpenApi,
} from "../http/openapi-problems";
import { validationHook } from "../http/validation";

const adoptRoute = createRoute({
  method: "post",
  path: "/v1/adopt",
  operationId: "adoptEntries",
  tags: ["ownership"],
  middleware: [requireRole("admin")] as const,
  summary: "Match the entries already on one list to pull requests' scopes (dry run), and adopt them (admin)",
  description:
    "Reads the list, matches each entry against `patterns` (`{pr}`, `{scope}` or `{branch}`), asks GitHub " +
    "with `github.token` (used for this request only) whether each pull request is open, and answers one " +
    "row per entry. With `apply`, each matched entry of an open pull request becomes its scope's own, so " +
    "the pull request's close removes it; with `removeClosed`, closed pull requests' entries are removed. " +
    "An entry two patterns claim, or another scope owns, is left as it is. `?repository=owner/name` " +
    "names the repository when the service serves several.",
  security: bearerSecurity,
  request: {
    body: {
      content: { "application/json": { schema: withOpenApi(adoptionBodySchema, "AdoptionBody") } },
      required: true,
    },
  },
  responses: {
    200: {
      description: "One row per entry of the list: its scope, its pull request, what was (or would be) done",
      content: { "application/json": { schema: withOpenApi(adoptionResultSchema, "AdoptionResult") } },
    },
    ...problemResponses(
      ...BODY_CODES,
      "NOT_FOUND",
      "LOCK_HELD",
      "LOCK_UNAVAILABLE",
      "CONCURRENT_MODIFICATION",
      "AUDIT_UNAVAILABLE",
      "CONNECTION_NOT_BOUND",
      ...AUTH_CODES,
    ),
  },
});

export function adoptionRoutes(engineFor: (env: AppEnv["Bindings"]) => Engine) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(adoptRoute, async (c) => {
    const body = c.req.valid("json");
    const repository = resolveRepository({
      caller: c.get("caller"),
      requested: c.req.query("repository"),
      repositories: configFromEnv(c.env).repositories,
    });
    const result = await engineFor(c.env).adopt(
      { ...body, repository: { id: repository.id, name: repository.name }, actor: c.get("actor") },
      adoptionAuditTrail(c.env),
    );
    return c.json(result, 200);
  });
}
