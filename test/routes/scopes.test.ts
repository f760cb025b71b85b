/** The scope endpoints over HTTP: bad input is a clear problem, never a 500 and never a write. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../workers/app";
import { lockTarget } from "../../workers/locks/lock-target";
import { apply, call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, providerWrites, receipt } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";

const app = testApp();

async function problem(res: Response) {
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  return (await res.json()) as { status: number; code: string; detail: string };
}

describe("scope endpoints", () => {
  it.each([
    ["malformed JSON", "{ plan: nope"],
    ["a plan of the wrong shape", { plan: { version: 2, lines: {} } }],
    ["wrong types", { plan: { version: 2, lines: "all" }, wait: "yes" }],
    ["an unknown field", { plan: { version: 2, lines: [] }, force: true }],
    [
      "a line naming an unknown connection",
      {
        plan: {
          version: 2,
          lines: [{ id: "a", op: "auth0.callbackUrl", connection: "x", params: {} }],
        },
      },
    ],
  ])("apply with %s answers 400 VALIDATION and writes nothing", async (_name, body) => {
    const scope = freshPr();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, body);
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe("VALIDATION");
    expect((await receipt("preview", scope)).runs).toEqual([]);
  });

  it("an unknown op is refused before any lock, naming the ops the service knows", async () => {
    const domain = freshAuth0Domain();
    const plan = previewPlan(domain);
    plan.lines[0] = { ...plan.lines[0], op: "auth0.nope" } as (typeof plan.lines)[number];
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, { plan });
    const body = await problem(res);
    expect(body.code).toBe("VALIDATION");
    expect(body.detail).toContain("auth0.nope");
  });

  it("a bad scope or environment in the path is 400, not a lock on a strange key", async () => {
    for (const path of [
      "/v1/scopes/preview/abc123/apply",
      "/v1/scopes/_locks/pr-1/apply",
      "/v1/scopes/Preview/pr-1/apply",
    ]) {
      const res = await call(app, "POST", path, { plan: { version: 2, lines: [] } });
      expect(res.status).toBe(400);
    }
  });

  it("a body over the limit is 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${freshPr()}/apply`,
      `{"pad":"${"x".repeat(MAX_BODY_BYTES)}"}`,
    );
    expect(res.status).toBe(413);
    expect((await problem(res)).code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("a scope lock held by another run answers 409 LOCK_HELD naming it, and nothing is written", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const held = await lockTarget(env, `scope:186853002/preview/${scope}`).acquire({
      holder: "run-elsewhere",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    expect(held.ok).toBe(true);
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: previewPlan(domain) });
    expect(res.status).toBe(409);
    const body = await problem(res);
    expect(body.code).toBe("LOCK_HELD");
    expect(body.detail).toContain("run-elsewhere");
    expect(await providerWrites(domain)).toBe(0);
  });

  it("NDJSON streams the run event, one event per line as it happens, then the result", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${freshPr()}/apply`,
      { plan: previewPlan(domain) },
      {
        accept: "application/x-ndjson",
      },
    );
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const events = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.map((e) => e.type)).toEqual(["run", "line", "line", "line", "result"]);
  });

  it("ledger shows what the scope owns; the scope list names it; rollback removes the last run's entries", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const applied = await apply(app, "preview", scope, previewPlan(domain));
    const ledger = (await (await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`)).json()) as {
      ledger: Array<{ runId: string }>;
      runs: Array<{ id: string }>;
    };
    expect(ledger.ledger).toHaveLength(3);
    expect(ledger.runs.map((r) => r.id)).toEqual([applied.run.id]);
    const listed = (await (await call(app, "GET", "/v1/scopes?environment=preview")).json()) as {
      scopes: Array<{ scope: string; entries: number }>;
    };
    expect(listed.scopes.find((s) => s.scope === scope)?.entries).toBe(3);
    const rolled = await call(app, "POST", `/v1/scopes/preview/${scope}/rollback`, {});
    expect(rolled.status).toBe(200);
    expect(
      ((await rolled.json()) as { lines: Array<{ result: string }> }).lines.map((l) => l.result),
    ).toEqual(["removed", "removed", "removed"]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
  });

  it("rollback of an unknown run is 404", async () => {
    // A scope with a receipt: one with none answers 200 saying so (test/engine/no-receipt.test.ts).
    const scope = freshPr();
    await apply(app, "preview", scope, { version: 2, lines: [] });
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/rollback`, { runId: "run-nope" });
    expect(res.status).toBe(404);
    expect((await problem(res)).code).toBe("NOT_FOUND");
  });
});
