/**
 * The scope endpoints (docs/api.md, "Routes"): apply, preview, destroy, rollback, ledger, scope listing. A
 * scope belongs to one repository: `?repository=owner/name` names it, or the caller's token does,
 * or the only configured one (workers/auth/resolve-repository.ts; resolved by the route table).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ErrorCode } from "../../shared/errors";
import { MAX_VARS, VAR_NAME } from "../../shared/placeholders";
import type { DeclaredProvenance } from "../../shared/schemas/provenance";
import { receiptViewSchema } from "../../shared/schemas/receipt";
import {
  type RepositoryConfig,
  repositoryNameSchema,
  repositoryRef,
  repositoryRefById,
} from "../../shared/schemas/repository";
import {
  applyBodySchema,
  destroyBodySchema,
  previewBodySchema,
  rollbackBodySchema,
  scopePathSchema,
  varsSchema,
} from "../../shared/schemas/requests";
import { scopeListSchema } from "../../shared/schemas/responses";
import type { RunResult } from "../../shared/schemas/run";
import type { AppEnv } from "../app-env";
import { provenanceFor } from "../auth/provenance";
import { resolveRepositoryFilter } from "../auth/resolve-repository";
import { callerOf } from "../auth/route-access";
import { configFromEnv } from "../config/config";
import type { Emit } from "../engine/deps";
import type { Engine, ScopeRequest } from "../engine/engine";
import { AUTH_CODES, bearerSecurity, problemResponses, withOpenApi } from "../http/openapi-problems";
import { runResponses } from "../http/run-openapi";
import { answerRun } from "../http/run-response";
import { requestMetrics } from "../http/server-timing";
import { validationHook } from "../http/validation";
import { ledgerView } from "../lock-views/ledger-view";
import { configuredReceiptStore } from "../receipts/configured-store";

type ScopePath = z.output<typeof scopePathSchema>;

const scopePath = scopePathSchema.extend({
  environment: withOpenApi(scopePathSchema.shape.environment, { example: "preview" }),
  scope: withOpenApi(scopePathSchema.shape.scope, { example: "pr-12" }),
});

const repositoryQuery = z.object({
  repository: withOpenApi(repositoryNameSchema.optional(), {
    param: { name: "repository", in: "query" },
    description:
      "owner/name of the repository the scope belongs to; optional when the token names it or one repository is configured",
    example: "acme/web",
  }),
});

function runRoute<B extends z.ZodType>(action: string, body: B, summary: string, ...codes: ErrorCode[]) {
  return createRoute({
    method: "post",
    path: `/v1/scopes/{environment}/{scope}/${action}`,
    operationId: action,
    tags: ["scopes"],
    summary,
    security: bearerSecurity,
    request: {
      params: scopePath,
      query: repositoryQuery,
      body: { content: { "application/json": { schema: body } }, required: true },
    },
    responses: runResponses(...codes),
  });
}

/** The document's generator drops a record's key schema: the var names and count, spelled out. */
const documentedVars = withOpenApi(varsSchema.optional(), {
  propertyNames: { type: "string", pattern: VAR_NAME.source },
  maxProperties: MAX_VARS,
  example: { url: "https://my-app-git-feat-x.vercel.app" },
});

const applyBody = withOpenApi(applyBodySchema.extend({ vars: documentedVars }), "ApplyBody");
const previewBody = withOpenApi(previewBodySchema.extend({ vars: documentedVars }), "PreviewBody");
const destroyBody = withOpenApi(destroyBodySchema, "DestroyBody");
const rollbackBody = withOpenApi(rollbackBodySchema, "RollbackBody");

const applyRoute = runRoute(
  "apply",
  applyBody,
  "Apply a plan to a scope",
  "EMPTY_PLAN",
  "CONNECTION_NOT_BOUND",
);
const previewRoute = runRoute(
  "preview",
  previewBody,
  "Diff a plan against the providers, without writing",
  "CONNECTION_NOT_BOUND",
);
const destroyRoute = runRoute("destroy", destroyBody, "Remove everything the scope owns");
const rollbackRoute = runRoute("rollback", rollbackBody, "Remove what one run created (default: the last)");

const ledgerRoute = createRoute({
  method: "get",
  path: "/v1/scopes/{environment}/{scope}/ledger",
  operationId: "getLedger",
  tags: ["scopes"],
  summary: "The scope's receipt: ledger, intents, last runs",
  security: bearerSecurity,
  request: { params: scopePath, query: repositoryQuery },
  responses: {
    200: {
      description: "The scope's receipt",
      content: { "application/json": { schema: withOpenApi(receiptViewSchema, "Receipt") } },
    },
    ...problemResponses("VALIDATION", "NOT_FOUND", ...AUTH_CODES),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/v1/scopes",
  operationId: "listScopes",
  tags: ["scopes"],
  summary: "Scopes that have receipts",
  security: bearerSecurity,
  request: {
    query: repositoryQuery.extend({ environment: scopePathSchema.shape.environment.optional() }),
  },
  responses: {
    200: {
      description: "Scopes that have receipts",
      content: {
        "application/json": {
          schema: withOpenApi(scopeListSchema, "ScopeList"),
        },
      },
    },
    ...problemResponses("VALIDATION", "NOT_FOUND", ...AUTH_CODES),
  },
});

const waitMs = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);

/** Apply, destroy and rollback may wait for a held lock; a preview never waits. */
const waiting = (body: { wait?: boolean | undefined; waitTimeoutSeconds?: number | undefined }) => ({
  wait: body.wait,
  waitTimeoutMs: waitMs(body.waitTimeoutSeconds),
});

/** Every run body may declare where the run comes from (docs/design.md, "Provenance"). */
type RunBody = { provenance?: DeclaredProvenance | undefined };

/**
 * One run action: the request fields its body adds to the scope (they sit between the scope and
 * the provenance), and the engine call that runs the request.
 */
interface RunAction<Body extends RunBody, Fields> {
  fields: (body: Body, repository: RepositoryConfig) => Fields;
  start: (engine: Engine, req: ScopeRequest & Fields, emit: Emit) => Promise<RunResult>;
}

/** A run route, as far as its handler reads it: the body it validates. */
interface RunRoute<Body> {
  request: { body: { content: { "application/json": { schema: z.ZodType<Body> } } } };
}

/**
 * The handler of every run route: the scope, the action's fields, the provenance, then the run.
 * `_route` is the route it serves, read only for its type: the body `action` reads is the one that
 * route validates.
 */
function runHandler<Body extends RunBody, Fields>(
  engineFor: (env: AppEnv["Bindings"]) => Engine,
  _route: RunRoute<Body>,
  action: RunAction<Body, Fields>,
) {
  return (c: Context<AppEnv, string, { out: { param: ScopePath; json: Body } }>) => {
    const { environment, scope } = c.req.valid("param");
    const body = c.req.valid("json");
    const repository = c.get("repository");
    const req = {
      repository: repositoryRef(repository),
      environment,
      scope,
      ...action.fields(body, repository),
      provenance: provenanceFor(callerOf(c), body.provenance, repository.name),
    };
    const metrics = requestMetrics(c);
    const answer = answerRun(c, metrics, (emit) => action.start(engineFor(c.env), { ...req, metrics }, emit));
    // @hono/zod-openapi types a handler's return as the route's typed responses, and a run's answer
    // is a plain Response that none of them is: the library types the `application/x-ndjson` stream
    // as nothing (it matches its `application/*json*` pattern, not a JSON suffix), and a refused run
    // is onError's problem response. The route's responses document what answerRun sends.
    return answer as never;
  };
}

export function scopeRoutes(engineFor: (env: AppEnv["Bindings"]) => Engine) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(
      applyRoute,
      runHandler(engineFor, applyRoute, {
        fields: (body, repository) => ({
          plan: body.plan,
          defaultBranch: repository.defaultBranch,
          sha: body.sha,
          vars: body.vars,
          allowEmpty: body.allowEmpty,
          ...waiting(body),
        }),
        start: (engine, req, emit) => engine.apply(req, emit),
      }),
    )
    .openapi(
      previewRoute,
      runHandler(engineFor, previewRoute, {
        fields: (body, repository) => ({
          plan: body.plan,
          defaultBranch: repository.defaultBranch,
          sha: body.sha,
          vars: body.vars,
        }),
        start: (engine, req, emit) => engine.preview(req, emit),
      }),
    )
    .openapi(
      destroyRoute,
      runHandler(engineFor, destroyRoute, {
        fields: (body) => waiting(body),
        start: (engine, req, emit) => engine.destroy(req, emit),
      }),
    )
    .openapi(
      rollbackRoute,
      runHandler(engineFor, rollbackRoute, {
        fields: (body) => ({ runId: body.runId, ...waiting(body) }),
        start: (engine, req, emit) => engine.rollback(req, emit),
      }),
    )
    .openapi(ledgerRoute, async (c) => {
      const { environment, scope } = c.req.valid("param");
      const repository = repositoryRef(c.get("repository"));
      const { receipt } = await configuredReceiptStore(c.env).read({ repository, environment, scope });
      return c.json(await ledgerView(c.env, repository, receipt), 200);
    })
    .openapi(listRoute, async (c) => {
      const { environment, repository: requested } = c.req.valid("query");
      const repositories = configFromEnv(c.env).repositories;
      // A caller bound to a repository lists only its scopes; others may list every repository's.
      const only = resolveRepositoryFilter({ caller: callerOf(c), requested, repositories });
      const summaries = await configuredReceiptStore(c.env).listScopes({
        ...(only === null ? {} : { repositoryId: only.id }),
        ...(environment === undefined ? {} : { environment }),
      });
      // Parent tags are the store's own bookkeeping, not part of the answer.
      const scopes = summaries.map(({ repositoryId, parents: _tags, ...summary }) => ({
        repository: repositoryRefById(repositoryId, repositories),
        ...summary,
      }));
      return c.json({ scopes }, 200);
    });
}
