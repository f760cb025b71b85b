/**
 * The audit trail (docs/security.md, "Who can do what"; docs/operations.md, "The audit stream"):
 * `GET /v1/audit` lists the newest records as JSON; with `?cursor=` (or `Accept:
 * application/x-ndjson`) it streams them in write order after the cursor, one record a line, for a
 * SIEM to tail. The whole trail is an admin's; a caller bound to one repository reads that
 * repository's records only, either way.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { repositoryRef } from "../../shared/schemas/repository";
import type { AppEnv } from "../app-env";
import {
  AUDIT_PAGE_DEFAULT,
  AUDIT_PAGE_MAX,
  auditPage,
  belongsTo,
  decodeCursor,
} from "../audit/audit-stream";
import { AUDIT_LISTED_MAX, auditEntrySchema, listAudit } from "../audit/audit-trail";
import { readBinding } from "../auth/read-binding";
import { assertRole, callerOf } from "../auth/route-access";
import { AUTH_CODES, bearerSecurity, problemResponses, withOpenApi } from "../http/openapi-problems";
import { NDJSON } from "../http/run-response";
import { validationHook } from "../http/validation";

export const CURSOR_HEADER = "Sponson-Cursor";
export const MORE_HEADER = "Sponson-More";

const auditEntry = withOpenApi(auditEntrySchema, "AuditEntry");

const streamedEntry = withOpenApi(
  auditEntrySchema.and(
    z.object({
      record: z.string().openapi({
        description: "The record's id (its R2 key): a receiver drops a repeat by it and `writtenAt`",
      }),
      writtenAt: z.number().int().openapi({ description: "When the record was (last) written, ms" }),
      cursor: z
        .string()
        .openapi({ description: "Resume after this record: `GET /v1/audit?cursor=<cursor>`" }),
    }),
  ),
  "AuditStreamRecord",
);

const listRoute = createRoute({
  method: "get",
  path: "/v1/audit",
  operationId: "listAudit",
  tags: ["audit"],
  summary:
    "The audit trail: newest first as JSON, or with ?cursor= a stream in write order (NDJSON) for a SIEM (admin; a repository-bound caller: its repository's records)",
  security: bearerSecurity,
  request: {
    query: z.object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(AUDIT_LISTED_MAX)
        .optional()
        .openapi({
          description: `JSON: at most this many (default ${AUDIT_LISTED_MAX}); stream: a page (default ${AUDIT_PAGE_DEFAULT}, at most ${AUDIT_PAGE_MAX})`,
        }),
      cursor: z.string().max(2_000).optional().openapi({
        description:
          "Stream the records written after this position (empty: from the start), from the last line's `cursor` or the Sponson-Cursor header",
      }),
    }),
  },
  responses: {
    200: {
      description:
        "JSON: records, newest first. NDJSON (`?cursor=` or `Accept: application/x-ndjson`): one record a line in write order, each with its `cursor`; records newer than 5 s follow on a later page",
      headers: {
        [CURSOR_HEADER]: {
          description: "NDJSON: the cursor to ask with next (after the last record of this page)",
          schema: { type: "string" as const },
        },
        [MORE_HEADER]: {
          description: "NDJSON: `true` when more records are ready now",
          schema: { type: "string" as const, enum: ["true", "false"] },
        },
      },
      content: {
        "application/json": { schema: z.object({ entries: z.array(auditEntry) }) },
        [NDJSON]: { schema: streamedEntry },
      },
    },
    ...problemResponses("VALIDATION", ...AUTH_CODES),
  },
});

/** `now` is the clock the stream's settle window is measured on (tests move it). */
export function auditRoutes(now: () => number = Date.now) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(listRoute, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const bound = readBinding(c);
    // The whole trail names every repository's actors and reasons: an admin's. A bound caller
    // reads its own repository's slice (the route table lets viewers this far).
    if (bound === null) assertRole(callerOf(c).role, "admin", `${c.req.method} ${c.req.path}`);
    const keep =
      bound === null ? undefined : (e: Parameters<typeof belongsTo>[0]) => belongsTo(e, repositoryRef(bound));
    const streamed = cursor !== undefined || (c.req.header("accept") ?? "").includes(NDJSON);
    if (!streamed) {
      const all = await listAudit(c.env, keep ? AUDIT_LISTED_MAX : limit);
      return c.json({ entries: keep ? all.filter(keep).slice(0, limit ?? AUDIT_LISTED_MAX) : all }, 200);
    }
    const page = await auditPage(c.env.RECEIPTS, {
      after: decodeCursor(cursor ?? ""),
      limit: Math.min(limit ?? AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX),
      now: now(),
      ...(keep ? { keep } : {}),
    });
    const body = page.entries.map((e) => `${JSON.stringify(e)}\n`).join("");
    // The library types this route's answers as its JSON shape; the NDJSON one is a plain Response
    // the route's responses document (as the run routes do).
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": NDJSON,
        [CURSOR_HEADER]: page.cursor,
        [MORE_HEADER]: String(page.more),
      },
    }) as never;
  });
}
