/**
 * Drives the Worker's HTTP API in-process: the dev entry's app (dev/entry/dev-app.ts), i.e.
 * production's createApp on the emulator transport, with real Durable Objects, R2 and emulators.
 */

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createDevApp, type DevAppOptions } from "../../dev/entry/dev-app";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import type { App } from "../../workers/app";
import { testEnv } from "./connections";
import { bearer } from "./tokens";

export type TestApp = App;

/**
 * Provider budgets are off unless the test turns them on (`engine: { sharedBudgets: true }`), as
 * the emulators' are (./test-engine.ts says why).
 */
export function testApp(options: DevAppOptions = {}): TestApp {
  return createDevApp({ ...options, engine: { sharedBudgets: false, ...options.engine } });
}

export async function call(
  app: TestApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  bindings: typeof env = env,
): Promise<Response> {
  const ctx = createExecutionContext();
  // Authenticated as a test admin unless the test brings its own Authorization (test/helpers/tokens.ts).
  const auth = "authorization" in headers ? {} : await bearer("admin");
  const init: RequestInit = { method, headers: { ...auth, ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const res = await app.request(`http://sponson.test${path}`, init, testEnv(bindings), ctx);
  if (!(res.headers.get("content-type") ?? "").includes("ndjson")) {
    await waitOnExecutionContext(ctx);
    return res;
  }
  // A stream finishes only while someone reads it: read it all, then let the run's tail settle.
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return new Response(text, { status: res.status, headers: res.headers });
}

export async function apply(
  app: TestApp,
  environment: string,
  scope: string,
  plan: Plan,
  extra: { wait?: boolean; waitTimeoutSeconds?: number } = {},
): Promise<RunResult> {
  const res = await call(app, "POST", `/v1/scopes/${environment}/${scope}/apply`, { plan, ...extra });
  return runOf(res, `apply ${scope}`);
}

export async function destroy(
  app: TestApp,
  environment: string,
  scope: string,
  extra: { wait?: boolean; waitTimeoutSeconds?: number } = {},
): Promise<RunResult> {
  const res = await call(app, "POST", `/v1/scopes/${environment}/${scope}/destroy`, extra);
  return runOf(res, `destroy ${scope}`);
}

/**
 * The run a JSON answer carries: 200 when it succeeded, a non-2xx when it failed (docs/design.md,
 * "Run outcomes and status codes"). A problem, or a status that contradicts the run, throws.
 */
export async function runOf(res: Response, what: string): Promise<RunResult> {
  const text = await res.text();
  const body = (() => {
    try {
      return JSON.parse(text) as Partial<RunResult>;
    } catch {
      return {};
    }
  })();
  const status = body.run?.status;
  if (status === undefined || (status === "succeeded") !== (res.status === 200))
    throw new Error(`${what}: ${res.status} ${text}`);
  return body as RunResult;
}

/** An app whose provider transport records the host of every outbound request it sends. */
export function observedApp(options: Omit<DevAppOptions, "engine"> = {}) {
  const hosts: string[] = [];
  const app = testApp({
    ...options,
    engine: {
      wrapFetch: (inner) => (input, init) => {
        hosts.push(new URL(new Request(input, init).url).host);
        return inner(input, init);
      },
    },
  });
  return { app, hosts };
}
