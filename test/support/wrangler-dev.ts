/**
 * Node side, for the suites that cannot run inside workerd (test/cli, test/e2e): the whole service
 * as the dev entry (wrangler.dev.toml: the provider emulators) under `wrangler dev` on 127.0.0.1
 * and free ports, fresh embedded state in a temporary --persist-to directory, and the lock test
 * hooks on (dev/entry/test-hooks.ts). Resolves once /healthz answers; `stop()` ends the process
 * group it started and removes the state directory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const POLL_MS = 250;
const STOP_GRACE_MS = 10_000;

export interface WranglerDev {
  url: string;
  /** Everything wrangler printed so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface WranglerDevOptions {
  /** Names the temporary state directory: sponson-<name>-XXXXXX. */
  name: string;
  /** `--var`s on top of the demo Auth0 secret and SPONSON_TEST_HOOKS. */
  vars: Record<string, string>;
  readyTimeoutMs: number;
  /** A wrangler config other than the project's (e.g. the emulators-only Worker). */
  config?: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`wrangler dev exited before it was ready:\n${output()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`wrangler dev did not answer /healthz within ${timeoutMs} ms:\n${output()}`);
}

export async function startWranglerDev(options: WranglerDevOptions): Promise<WranglerDev> {
  const port = await freePort();
  const inspectorPort = await freePort();
  const persistTo = mkdtempSync(join(tmpdir(), `sponson-${options.name}-`));
  const url = `http://127.0.0.1:${port}`;
  const vars: Record<string, string> = {
    // The emulated demo tenant's M2M secret (dev/emulators/auth0): a local value, not a secret.
    AUTH0_CLIENT_SECRET: "local-demo-secret",
    // The demo connections `npm start` configures, so examples/plan.json works as in the README.
    SPONSON_CONNECTIONS: JSON.stringify(
      JSON.parse(readFileSync(join(ROOT, "examples", "connections.local.json"), "utf8")),
    ),
    SPONSON_TEST_HOOKS: "on",
    // One repository (the one vitest.config.ts configures), so scope endpoints need no ?repository=.
    SPONSON_REPOSITORIES: JSON.stringify([{ name: "Codertocat/Hello-World", id: 186853002 }]),
    ...options.vars,
  };
  const args = [
    "dev",
    // By default the dev entry (dev/entry/index.ts): the production Worker plus the emulators.
    "--config",
    options.config ?? "wrangler.dev.toml",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    persistTo,
    "--show-interactive-dev-session=false",
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  let output = "";
  const child = spawn(join(ROOT, "node_modules", ".bin", "wrangler"), args, {
    cwd: ROOT,
    // node_modules/.bin first: wrangler needs the pinned Node (package.json), not the machine's.
    env: {
      ...process.env,
      PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
      CI: "true",
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((r) => child.once("exit", r));
      // The group we started (wrangler and its workerd), by id.
      process.kill(-child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, STOP_GRACE_MS))]);
      if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    }
    rmSync(persistTo, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, child, () => output, options.readyTimeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, log: () => output, stop };
}
