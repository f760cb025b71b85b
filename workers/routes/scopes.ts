/**
 * The scope endpoints (README, "HTTP API (v1)"): apply, preview, destroy, rollback, ledger, scope listing. A
 * scope belongs to one repository: `?repository=owner/name` names it, or the caller's token does,
 * or the only configured one (workers/auth/resolve-repository.ts; resolved by the route table).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../shared/errors";
import { MAX_VARS, VAR_NAME } from "../../shared/placeholders";
import { receiptViewSchema } from "../../shared/schemas/receipt";
import { repositoryNameSchema, repositoryRef, repositoryRefById } from "../../shared/schemas/repository";
import {
  applyBodySchema,
  destroyBodySchema,
  previewBodySchema,
  rollbackBodySchema,
  scopePathSchema,
  varsSchema,
} from "../../shared/schemas/requests";
import { scopeListSchema } from "../../shared/schemas/responses";
import { runResultSchema } from "../../shared/schemas/run";
import { runEventSchema } from "../../shared/schemas/run-event";
import type { AppEnv } from "../app-env";
import { provenanceFor } from "../auth/provenance";
import { resolveRepositoryFilter } from "../auth/resolve-repository";
import { callerOf } from "../auth/route-access";
import { configFromEnv } from "../config/config";
import type { Engine } from "../engine/engine";
import {
  AUTH_CODES,
  BODY_CODES,
  bearerSecurity,
  problemResponses,
  withOpenApi,
} from "../http/openapi-problems";
import { answerRun, NDJSON } from "../http/run-response";
import { FAILED_RUN_STATUS } from "../http/run-status";
import { requestMetrics } from "../http/server-timing";
import { validationHook } from "../http/validation";
import { ledgerView } from "../locks/ledger-view";
import { configuredReceiptStore } from "../receipts/configured-store";

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

const serverTimingHeader = {
  "Server-Timing": {
    description:
      "Where the run's time went, in ms: `auth`, `scope-lock`, `parent-lock`, `provider`, `storage`, " +
      "`total` (the result's `timings`). A streamed answer's header holds only `auth`; its final `result` " +
      "event carries the full timings",
    schema: {
      type: "string" as const,
      example:
        "auth;dur=2, scope-lock;dur=4, parent-lock;dur=3, provider;dur=41, storage;dur=12, total;dur=63",
    },
  },
};

const runResult = withOpenApi(runResultSchema, "RunResult");

/**
 * What a run answers: 200 for a succeeded run (or any streamed one); a failed run (JSON mode) under
 * its cause's status (workers/http/run-status.ts), beside the problems that refuse a run before it
 * starts (docs/design.md, "Errors").
 */
function runResponses(...codes: ErrorCode[]) {
  const problems = problemResponses(
    ...BODY_CODES,
    "NOT_FOUND",
    "LOCK_HELD",
    "CONCURRENT_MODIFICATION",
    "RATE_LIMITED",
    ...AUTH_CODES,
    ...codes,
  );
  for (const status of new Set(Object.values(FAILED_RUN_STATUS))) {
    const causes = Object.entries(FAILED_RUN_STATUS).filter(([, s]) => s === status);
    const failed = `The run executed and failed (JSON mode): the RunResult, for a run whose error is ${causes.map(([code]) => code).join(", ")}`;
    const problem = problems[status];
    problems[status] = {
      description: problem ? `${problem.description}. Or: ${failed}` : failed,
      // A run failed by a held lock sends Retry-After too (workers/http/run-response.ts).
      ...(problem?.headers ? { headers: problem.headers } : {}),
      content: { ...(problem?.content ?? {}), "application/json": { schema: runResult } },
    };
  }
  return {
    200: {
      description:
        "The run executed and succeeded. With `Accept: application/x-ndjson`, one RunEvent per line as it " +
        "happens, the result last: a streamed run always answers 200, its final `result` event says how it ended",
      headers: serverTimingHeader,
      content: {
        "application/json": { schema: runResult },
        [NDJSON]: { schema: withOpenApi(runEventSchema, "RunEvent") },
      },
    },
    ...problems,
  };
}

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

const applyRoute = runRoute(
  "apply",
  withOpenApi(applyBodySchema.extend({ vars: documentedVars }), "ApplyBody"),
  "Apply a plan to a scope",
  "EMPTY_PLAN",
);
const previewRoute = runRoute(
  "preview",
  withOpenApi(previewBodySchema.extend({ vars: documentedVars }), "PreviewBody"),
  "Diff a plan against the providers, without writing",
);
const destroyRoute = runRoute(
  "destroy",
  withOpenApi(destroyBodySchema, "DestroyBody"),
  "Remove everything the scope owns",
);
const rollbackRoute = runRoute(
  "rollback",
  withOpenApi(rollbackBodySchema, "RollbackBody"),
  "Remove what one run created (default: the last)",
);

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

export function scopeRoutes(engineFor: (env: AppEnv["Bindings"]) => Engine) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(applyRoute, (c) => {
      const { environment, scope } = c.req.valid("param");
      const body = c.req.valid("json");
      const req = {
        repository: repositoryRef(c.get("repository")),
        environment,
        scope,
        plan: body.plan,
        defaultBranch: c.get("repository").defaultBranch,
        sha: body.sha,
        vars: body.vars,
        allowEmpty: body.allowEmpty,
        wait: body.wait,
        waitTimeoutMs: waitMs(body.waitTimeoutSeconds),
        provenance: provenanceFor(callerOf(c), body.provenance, c.get("repository").name),
      };
      const metrics = requestMetrics(c);
      return answerRun(c, metrics, (emit) => engineFor(c.env).apply({ ...req, metrics }, emit)) as never;
    })
    .openapi(previewRoute, (c) => {
      const { environment, scope } = c.req.valid("param");
      const { plan, sha, vars, provenance } = c.req.valid("json");
      const repository = c.get("repository");
      const req = {
        repository: repositoryRef(repository),
        environment,
        scope,
        plan,
        defaultBranch: repository.defaultBranch,
        sha,
        vars,
        provenance: provenanceFor(callerOf(c), provenance, repository.name),
      };
      const metrics = requestMetrics(c);
      return answerRun(c, metrics, (emit) => engineFor(c.env).preview({ ...req, metrics }, emit)) as never;
    })
    .openapi(destroyRoute, (c) => {
      const { environment, scope } = c.req.valid("param");
      const body = c.req.valid("json");
      const req = {
        repository: repositoryRef(c.get("repository")),
        environment,
        scope,
        wait: body.wait,
        waitTimeoutMs: waitMs(body.waitTimeoutSeconds),
        provenance: provenanceFor(callerOf(c), body.provenance, c.get("repository").name),
      };
      const metrics = requestMetrics(c);
      return answerRun(c, metrics, (emit) => engineFor(c.env).destroy({ ...req, metrics }, emit)) as never;
    })
    .openapi(rollbackRoute, (c) => {
      const { environment, scope } = c.req.valid("param");
      const body = c.req.valid("json");
      const req = {
        repository: repositoryRef(c.get("repository")),
        environment,
        scope,
        runId: body.runId,
        wait: body.wait,
        waitTimeoutMs: waitMs(body.waitTimeoutSeconds),
        provenance: provenanceFor(callerOf(c), body.provenance, c.get("repository").name),
      };
      const metrics = requestMetrics(c);
      return answerRun(c, metrics, (emit) => engineFor(c.env).rollback({ ...req, metrics }, emit)) as never;
    })
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
