/**
 * The audit trail as a stream (docs/operations.md, "The audit stream"): `GET /v1/audit?cursor=`
 * answers NDJSON, one record a line in write order, each with the cursor to resume after it; a
 * record is listed once it has settled (5 s), so no later page can place a record before a cursor
 * already given. The whole trail is an admin's; a repository-bound caller reads its own
 * repository's records; an unbound viewer is refused. The OpenAPI document describes it.
 */
import { describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../shared/clock";
import { AUDIT_SETTLE_MS } from "../../workers/audit/audit-stream";
import { call, testApp } from "../helpers/app";
import { freshScopeKey } from "../helpers/locks";
import { bearer, mintServiceToken } from "../helpers/tokens";

/** The service's clock, a minute on: every record written so far has settled. */
const later: Clock = { ...systemClock, now: () => Date.now() + 60_000 };
const settledApp = testApp({ engine: { clock: later } });
const liveApp = testApp();

type Line = { kind: string; key?: string; record: string; writtenAt: number; cursor: string; actor?: string };

async function hold(key: string, reason: string) {
  const res = await call(settledApp, "POST", `/v1/locks/${encodeURIComponent(key)}/hold`, {
    reason,
    ttlSeconds: 600,
  });
  expect(res.status).toBe(200);
}

async function stream(app = settledApp, cursor = "", headers?: Record<string, string>, limit = 500) {
  const res = await call(
    app,
    "GET",
    `/v1/audit?cursor=${encodeURIComponent(cursor)}&limit=${limit}`,
    undefined,
    headers,
  );
  const text = await res.text();
  const lines =
    text === "" || res.status !== 200
      ? []
      : text
          .trimEnd()
          .split("\n")
          .map((l) => JSON.parse(l) as Line);
  const body = () => JSON.parse(text) as { code?: string; rule?: string };
  return {
    res,
    body,
    lines,
    cursor: res.headers.get("sponson-cursor") ?? "",
    more: res.headers.get("sponson-more"),
  };
}

/** The cursor at the end of everything written so far. */
async function end(): Promise<string> {
  let cursor = "";
  for (;;) {
    const page = await stream(settledApp, cursor);
    cursor = page.cursor;
    if (page.more !== "true") return cursor;
  }
}

describe("GET /v1/audit?cursor=", () => {
  it("streams records in write order as NDJSON; the cursor resumes after the last, never repeating one", async () => {
    const start = await end();
    const keys = [freshScopeKey("stream-a"), freshScopeKey("stream-b")];
    for (const key of keys) await hold(key, "stream test");
    const first = await stream(settledApp, start);
    expect(first.res.headers.get("content-type")).toContain("application/x-ndjson");
    const mine = first.lines.filter((l) => keys.includes(l.key ?? ""));
    expect(mine.map((l) => [l.kind, l.key])).toEqual(keys.map((k) => ["hold", k]));
    expect(mine[0]?.writtenAt).toBeLessThanOrEqual(mine[1]?.writtenAt ?? 0);
    expect(first.cursor).toBe(first.lines.at(-1)?.cursor);

    const third = freshScopeKey("stream-c");
    await hold(third, "stream test");
    const next = await stream(settledApp, first.cursor);
    expect(next.lines.map((l) => l.key)).toContain(third);
    expect(next.lines.some((l) => keys.includes(l.key ?? ""))).toBe(false);
    // Resuming from a line's own cursor gives what followed it.
    const resumed = await stream(settledApp, mine[0]?.cursor ?? "");
    expect(resumed.lines.map((l) => l.key)).toContain(keys[1]);
    expect(resumed.lines.map((l) => l.key)).not.toContain(keys[0]);
  });

  it("control: a record younger than the settle window is not listed yet, and the cursor does not pass it", async () => {
    const start = await end();
    const key = freshScopeKey("stream-fresh");
    await hold(key, "too fresh");
    // On the real clock the hold is moments old.
    const now = await stream(liveApp, start);
    expect(now.lines.map((l) => l.key)).not.toContain(key);
    const settled = await stream(settledApp, now.cursor);
    expect(settled.lines.map((l) => l.key)).toContain(key);
    expect(AUDIT_SETTLE_MS).toBeGreaterThan(0);
  });

  it("a repository-bound viewer reads only its repository's records; an unbound viewer is refused", async () => {
    const start = await end();
    const own = freshScopeKey("stream-own");
    const other = own.replace("scope:186853002/", "scope:42/");
    await hold(own, "ours");
    await hold(other, "theirs");
    await hold(`_locks/${"ab".repeat(16)}`, "a shared object");
    const bound = {
      authorization: `Bearer ${await mintServiceToken({ role: "viewer", repository: "Codertocat/Hello-World" })}`,
    };
    const seen = await stream(settledApp, start, bound);
    expect(seen.res.status).toBe(200);
    expect(seen.lines.map((l) => l.key)).toContain(own);
    expect(seen.lines.map((l) => l.key)).not.toContain(other);
    expect(seen.lines.every((l) => l.kind !== "hold" || l.key?.startsWith("scope:186853002/"))).toBe(true);
    const listed = await call(settledApp, "GET", "/v1/audit", undefined, bound);
    const entries = ((await listed.json()) as { entries: Line[] }).entries;
    expect(entries.map((e) => e.key)).toContain(own);
    expect(entries.map((e) => e.key)).not.toContain(other);

    const unbound = await stream(settledApp, start, await bearer("viewer"));
    expect(unbound.res.status).toBe(403);
    expect(unbound.body().rule).toBe("role.admin");
  });

  it("a cursor the service never gave is 400", async () => {
    const { res, body } = await stream(settledApp, "not-a-cursor");
    expect(res.status).toBe(400);
    expect(body().code).toBe("VALIDATION");
  });

  it("the OpenAPI document describes the stream: the cursor, the NDJSON record and its headers", async () => {
    const doc = (await (await call(settledApp, "GET", "/v1/openapi.json")).json()) as {
      paths: Record<
        string,
        { get: { parameters: Array<{ name: string }>; responses: Record<string, unknown> } }
      >;
    };
    const get = doc.paths["/v1/audit"]?.get;
    expect(get?.parameters.map((p) => p.name)).toContain("cursor");
    const ok = get?.responses["200"] as {
      content: Record<string, unknown>;
      headers: Record<string, unknown>;
    };
    expect(Object.keys(ok.content)).toContain("application/x-ndjson");
    expect(Object.keys(ok.headers)).toContain("Sponson-Cursor");
  });
});
