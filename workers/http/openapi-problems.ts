/**
 * OpenAPI metadata shared by the route files: the Problem component every error response uses
 * (docs/design.md, "Errors": RFC 9457 problem+json with a stable `code`), grouped by status with the codes a
 * route can answer, and the bearer scheme callers authenticate with (docs/design.md, "Security model").
 */
import { z } from "@hono/zod-openapi";
import { ERROR_TABLE, type ErrorCode } from "../../shared/errors";
import { PROBLEM_CONTENT_TYPE, problemSchema } from "../../shared/schemas/problem";

export const BEARER_SCHEME = "bearer";

/**
 * `schema.openapi(...)` for schemas from shared/, which import plain "zod": zod 4 copies prototype
 * methods onto a schema when it is built, so one built before @hono/zod-openapi extended zod
 * (module order decides) has no `.openapi` of its own. Calling the extension directly always works.
 */
export function withOpenApi<T extends z.ZodType>(
  schema: T,
  ...args: [refId: string, metadata?: Record<string, unknown>] | [metadata: Record<string, unknown>]
): T {
  const extension = (z.ZodType.prototype as unknown as { openapi: (...a: unknown[]) => T }).openapi;
  return extension.apply(schema, args);
}

const problemComponent = withOpenApi(problemSchema, "Problem", {
  description: "RFC 9457 problem details; `code` is stable, `detail` is for people",
});

/** Codes every authenticated route can answer: missing or refused token, role, misconfiguration. */
export const AUTH_CODES: ErrorCode[] = ["UNAUTHENTICATED", "FORBIDDEN", "PROVIDER_ERROR", "INTERNAL"];
/** Codes of a route that takes a JSON body under /v1 (validation and the body limit). */
export const BODY_CODES: ErrorCode[] = ["VALIDATION", "PAYLOAD_TOO_LARGE"];

type ProblemResponses = Record<
  number,
  {
    description: string;
    headers?: Record<string, { description: string; schema: { type: "integer" } }>;
    content: Record<string, { schema: z.ZodType }>;
  }
>;

/** LOCK_HELD's header (docs/design.md, "Lock answers"); its `holder`/`position` are extension members. */
const LOCK_HELD_HEADERS = {
  "Retry-After": {
    description:
      "LOCK_HELD: seconds until the holder's lease (or a hold) ends, at least 1; the problem's `holder` " +
      "names it ({ run, repository, scope, pullRequest, actor, runUrl, declared, since, expiresAt } or " +
      "{ hold }) and `position` the caller's place if it waited",
    schema: { type: "integer" as const },
  },
};

/** `responses` entries for the given codes, one per HTTP status, naming the codes it carries. */
export function problemResponses(...codes: ErrorCode[]): ProblemResponses {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: ProblemResponses = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = list.map((c) => `${c}: ${ERROR_TABLE[c].title}`).join("; ");
    out[status] = {
      description,
      ...(list.includes("LOCK_HELD") ? { headers: LOCK_HELD_HEADERS } : {}),
      content: { [PROBLEM_CONTENT_TYPE]: { schema: problemComponent } },
    };
  }
  return out;
}

/** `security` of an operation: bearer (a service token or a GitHub Actions OIDC token), or none. */
export const bearerSecurity = [{ [BEARER_SCHEME]: [] }];
export const publicSecurity: Array<Record<string, string[]>> = [];
