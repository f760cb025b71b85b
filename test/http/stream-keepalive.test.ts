/**
 * A streamed run that waits for its scope lease says it is still there: after one keep-alive
 * interval the stream opens with a `keepalive` line, more follow while the run waits, and the run's
 * own events and result come once the other run lets go. A wait that ends in LOCK_HELD after the
 * stream opened is the stream's `error` event. (The interval is STREAM_KEEPALIVE_SECONDS, short here.)
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { type RunOrigin, unknownProvenance } from "../../shared/schemas/provenance";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, untilWaiters } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { bearer } from "../helpers/tokens";

const app = testApp();
const NDJSON = "application/x-ndjson";
const bindings = { ...env, STREAM_KEEPALIVE_SECONDS: "0.02" };

async function holdScope(scope: string, origin?: RunOrigin) {
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  const grant = await lockTarget(env, key).acquire({
    holder: "run-other",
    ttlMs: 60_000,
    wait: false,
    waitTimeoutMs: 0,
    ...(origin ? { origin } : {}),
  });
  if (!grant.ok) throw new Error(grant.error.message);
  return {
    key,
    release: () => lockStub(env, key).release({ key, holder: "run-other", token: grant.value.token }),
  };
}

/** Reads NDJSON lines as they arrive. */
function lines(res: Response) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async function next(): Promise<{ type: string; [k: string]: unknown } | null> {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return JSON.parse(line);
      }
      const { done, value } = await reader.read();
      if (done) return null;
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

async function streamedApply(scope: string, body: object) {
  const ctx = createExecutionContext();
  const res = await app.request(
    `http://sponson.test/v1/scopes/preview/${scope}/apply`,
    {
      method: "POST",
      headers: {
        ...(await bearer("admin")),
        "content-type": "application/json",
        accept: "application/x-ndjson",
      },
      body: JSON.stringify(body),
    },
    testEnv(bindings),
    ctx,
  );
  return { res, settled: () => waitOnExecutionContext(ctx) };
}

describe("keep-alive on a streamed run", () => {
  it("a run waiting for its scope lease streams keepalive lines, then its events and result", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const held = await holdScope(scope);
    const { res, settled } = await streamedApply(scope, {
      plan: previewPlan(domain),
      wait: true,
      waitTimeoutSeconds: 60,
    });
    expect(res.status).toBe(200);
    const next = lines(res);
    // The stream is open while the lease is still held by the other run.
    expect(await next()).toEqual({ type: "keepalive" });
    expect(await next()).toEqual({ type: "keepalive" });
    await untilWaiters(held.key, 1);
    await held.release();
    const rest: string[] = [];
    type ResultEvent = { type: string; result?: { run: { status: string } } };
    let result: ResultEvent | null = null;
    for (let event = await next(); event !== null; event = await next()) {
      rest.push(event.type);
      if (event.type === "result") result = event as ResultEvent;
    }
    await settled();
    // A wait longer than a second also streams `waiting` reports (the next test).
    expect(rest.filter((t) => t !== "keepalive" && t !== "waiting")).toEqual([
      "run",
      "line",
      "line",
      "line",
      "result",
    ]);
    expect(result?.result?.run.status).toBe("succeeded");
  });

  it("a wait that runs out after the stream opened ends with an error event LOCK_HELD", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const held = await holdScope(scope);
    const body = { plan: previewPlan(domain), wait: true, waitTimeoutSeconds: 1 };
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${scope}/apply`,
      body,
      { accept: NDJSON },
      bindings,
    );
    await held.release();
    expect(res.status).toBe(200);
    const events = (await res.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; error?: { code: string } });
    expect(events[0]).toEqual({ type: "keepalive" });
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "LOCK_HELD" } });
    expect(events.filter((e) => e.type !== "keepalive" && e.type !== "waiting")).toHaveLength(1);
  });

  it("a run queued for its scope lease streams a waiting event naming the holder, its place and the time waited", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const held = await holdScope(scope, {
      repositoryId: DEFAULT_REPOSITORY.id,
      repository: DEFAULT_REPOSITORY.name,
      scope: "preview/pr-9",
      provenance: { ...unknownProvenance(false), pullRequest: 9, actor: "octocat" },
    });
    const { res, settled } = await streamedApply(scope, {
      plan: previewPlan(domain),
      wait: true,
      waitTimeoutSeconds: 60,
    });
    const next = lines(res);
    // Read until the run's first report (about a second into its wait: the object answers it).
    let waiting: { type: string; [k: string]: unknown } | null = null;
    for (let event = await next(); event !== null; event = await next()) {
      if (event.type === "waiting") {
        waiting = event;
        break;
      }
    }
    expect(waiting).toMatchObject({
      type: "waiting",
      waiting: {
        lock: held.key,
        identity: null,
        holder: { run: "run-other", pullRequest: 9, actor: "octocat", scope: "preview/pr-9" },
        position: 1,
      },
    });
    expect((waiting?.waiting as { waitedMs?: number } | undefined)?.waitedMs).toBeGreaterThanOrEqual(1000);
    await held.release();
    let status: string | undefined;
    for (let event = await next(); event !== null; event = await next()) {
      if (event.type === "result") status = (event.result as { run: { status: string } }).run.status;
    }
    await settled();
    expect(status).toBe("succeeded");
  });
});
