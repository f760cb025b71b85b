/**
 * The dashboard's run and object pages (docs/operations.md, "The dashboard"): `/dashboard/runs/{id}`,
 * which the Action's pull-request comment links, and `/dashboard/objects/{hash}`, one provider object
 * with its entries, owners, foreign and orphaned items, its capped lists' fill levels and its lock.
 * Viewer or above (the route table); a caller bound to one repository sees only that repository's
 * runs and entries.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { SponsonError } from "../../shared/errors";
import { owningRepositories } from "../../shared/lock-visibility";
import { scopeOfOwner } from "../../shared/schemas/ownership";
import { repositoryRefById, sameRepositoryName } from "../../shared/schemas/repository";
import { ADAPTERS } from "../adapters";
import type { AppEnv } from "../app-env";
import { roleAtLeast } from "../auth/caller";
import { configFromEnv } from "../config/config";
import { Connections } from "../connections/connections";
import { fillRows } from "../dashboard/object-fills";
import { lockKeyOfHash, OBJECT_HASH, objectHash } from "../dashboard/object-hash";
import type { ObjectEntry } from "../dashboard/object-page";
import { pageHeaders } from "../dashboard/page-headers";
import { renderObjectPage, renderRunLinkPage, renderRunPage } from "../dashboard/render-pages";
import { ledgerRows, recentRuns } from "../dashboard/snapshot";
import { boundRepositoryOf } from "../dashboard/view-filter";
import { effectiveCap } from "../engine/capacity/list-fill";
import type { Engine } from "../engine/engine";
import { OpRegistry } from "../engine/plan/op-registry";
import { AUTH_CODES, bearerSecurity, problemResponses } from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { ledgerView } from "../lock-views/ledger-view";
import { lockForRepository, withRepositoryNames } from "../lock-views/repository-view";
import { parentSeenBy } from "../lock-views/visible-locks";
import { lockStub } from "../locks/lock-target";
import { configuredReceiptStore } from "../receipts/configured-store";
import { adminFormCsrf } from "./admin-forms";
import { html } from "./dashboard-openapi";

const OPS = new OpRegistry(ADAPTERS);

const runRoute = createRoute({
  method: "get",
  path: "/dashboard/runs/{id}",
  operationId: "dashboardRun",
  tags: ["dashboard"],
  summary: "One run: outcome, timings and the entries it added (the pull-request comment's link)",
  security: bearerSecurity,
  request: {
    params: z.object({ id: z.string().min(1).max(100) }),
    query: z.object({
      environment: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/),
      scope: z.string().min(1).max(210),
      repository: z.string().max(201).optional(),
    }),
  },
  responses: {
    200: { description: "The run's page", content: html },
    303: { description: "No session: to the sign-in form" },
    ...problemResponses("VALIDATION", "NOT_FOUND", "RATE_LIMITED", ...AUTH_CODES),
  },
});

const objectRoute = createRoute({
  method: "get",
  path: "/dashboard/objects/{hash}",
  operationId: "dashboardObject",
  tags: ["dashboard"],
  summary:
    "One provider object: its entries with their owners, foreign and orphaned ones, its capped lists' fill levels, and its lock",
  security: bearerSecurity,
  request: { params: z.object({ hash: z.string().regex(OBJECT_HASH) }) },
  responses: {
    200: { description: "The object's page", content: html },
    303: { description: "No session: to the sign-in form" },
    ...problemResponses("VALIDATION", "NOT_FOUND", "RATE_LIMITED", ...AUTH_CODES),
  },
});

/** A run link without its query is a reader's link cut short: a page, not the API's problem JSON. */
async function runLinkPage(c: Context<AppEnv>): Promise<Response> {
  const page = await renderRunLinkPage({ nonce: pageHeaders(c), id: c.req.param("id") ?? "" }).toString();
  return c.newResponse(page, 400, { "Content-Type": "text/html; charset=UTF-8" });
}

export function dashboardPageRoutes(engineFor: (env: AppEnv["Bindings"]) => Engine) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(
      runRoute,
      async (c) => {
        const nonce = pageHeaders(c);
        const caller = c.get("caller");
        const { id } = c.req.valid("param");
        const { environment, scope, repository: named } = c.req.valid("query");
        const repositories = configFromEnv(c.env).repositories;
        const bound = boundRepositoryOf(caller, repositories);
        const configured =
          named === undefined ? undefined : repositories.find((r) => sameRepositoryName(r.name, named));
        // A bound caller reads its own repository only; another one's run is "not found", not "forbidden".
        const repository =
          bound ??
          (configured
            ? { id: configured.id, name: configured.name }
            : repositories.length === 1
              ? repositories[0]
              : null);
        if (!repository || (bound && named !== undefined && !sameRepositoryName(bound.name, named))) {
          throw new SponsonError("NOT_FOUND", `no run ${id} in ${environment}/${scope}`);
        }
        const ref = { id: repository.id, name: repository.name };
        const { receipt } = await configuredReceiptStore(c.env).read({ repository: ref, environment, scope });
        const run = recentRuns([receipt], Number.MAX_SAFE_INTEGER).find((r) => r.id === id);
        const record = receipt.runs.find((r) => r.id === id);
        if (!run || !record) throw new SponsonError("NOT_FOUND", `no run ${id} in ${environment}/${scope}`);
        const rows = ledgerRows(await ledgerView(c.env, ref, receipt)).filter((e) => e.runId === id);
        const entries = await Promise.all(
          rows.map(async (e) => (e.parent === null ? e : { ...e, parentHash: await objectHash(e.parent) })),
        );
        return c.html(
          renderRunPage({
            nonce,
            subject: caller.subject,
            role: caller.role,
            run: { ...run, repository: receipt.repository ?? ref },
            entries,
            created: record.created,
          }),
          200,
        );
      },
      (result, c) => {
        if (result.success) return;
        if (result.target === "query") return runLinkPage(c);
        validationHook(result, c);
      },
    )
    .openapi(objectRoute, async (c) => {
      const nonce = pageHeaders(c);
      const caller = c.get("caller");
      const { hash } = c.req.valid("param");
      const key = lockKeyOfHash(hash);
      const stub = lockStub(c.env, key);
      const [state, ownership] = await Promise.all([stub.read({ key }), stub.ownership({ key })]);
      if (state.identity === null)
        throw new SponsonError("NOT_FOUND", "the service knows no object with this hash");
      const config = configFromEnv(c.env);
      const repositories = config.repositories;
      const bound = boundRepositoryOf(caller, repositories);
      // An object the bound repository does not use is not there for it: the unknown hash's answer.
      const seen =
        bound === null ? null : await parentSeenBy(c.env, state, bound, owningRepositories(ownership.items));
      if (seen !== null && !seen.visible)
        throw new SponsonError("NOT_FOUND", "the service knows no object with this hash");
      // The object's lists with a cap now (documented or configured), the way a write finds it.
      const connections = new Connections(config.connections);
      const capped = ownership.locators
        .filter(
          (l) =>
            effectiveCap(OPS.get(l.op)?.capacity?.maxEntries, connections.capacityOf(l.connection, l.op)) !==
            undefined,
        )
        .map((l) => l.op);
      const entries: ObjectEntry[] = [];
      for (const item of ownership.items) {
        const owners = item.owners.map((o) => ({ o, scope: scopeOfOwner(o) }));
        const mine = owners.filter((x) => bound === null || x.scope?.repositoryId === bound.id);
        if (bound !== null && mine.length === 0) continue;
        entries.push({
          op: item.op,
          key: item.key,
          owners: mine.map(({ o, scope: s }) =>
            s ? `${repositoryRefById(s.repositoryId, repositories).name} ${s.environment}/${s.scope}` : o,
          ),
          hiddenOwners: owners.length - mine.length,
          foreign: item.foreign,
        });
      }
      // The lock as the API shows this caller (GET /v1/locks/{key}): another repository's run is hidden.
      const view =
        bound === null || seen === null ? state : (lockForRepository(state, bound.id, seen.runs) ?? state);
      const admin = roleAtLeast(caller.role, "admin");
      const found = admin ? await engineFor(c.env).orphans(state.identity) : null;
      return c.html(
        renderObjectPage({
          nonce,
          subject: caller.subject,
          role: caller.role,
          hash,
          identity: state.identity,
          lock: {
            held: view.held,
            holder: view.holder,
            heldBy: view.heldBy ?? null,
            since: view.since,
            waiters: view.waiters.map((w) => w.holder),
            hold: view.hold,
          },
          adminCsrf: await adminFormCsrf(c),
          entries,
          // Counts only (docs/design.md, "Fill levels"): every caller of the page sees them, as the lock detail answers them.
          // Each repository's share too: another repository's counted, never named, for a bound caller.
          fills: fillRows(withRepositoryNames(view, repositories).fills ?? [], capped),
          orphans: found ? found.orphans.map((o) => ({ op: o.op, key: o.key })) : null,
          problems: found?.problems ?? [],
          now: Date.now(),
        }),
        200,
      );
    });
}
