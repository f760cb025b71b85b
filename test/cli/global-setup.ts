/**
 * Node-side CLI suite setup: bundle the CLI, start the whole service with `wrangler dev` on a free
 * port over a temporary state directory (the flags of scripts/start.mjs, a signing key made for this
 * run, the dashboard's local lock hook), wait for /healthz, and stop it all at the end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import type { TestProject } from "vitest/node";
import { buildCli } from "../../cli/build.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const READY_TIMEOUT_MS = 120_000;

declare module "vitest" {
  export interface ProvidedContext {
    sponsonUrl: string;
    signingKey: string;
    audience: string;
  }
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

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
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
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev was not ready within ${READY_TIMEOUT_MS} ms:\n${output()}`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildCli();
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const signingKey = JSON.stringify(await exportJWK(privateKey));
  const port = await freePort();
  const inspectorPort = await freePort();
  const persistTo = mkdtempSync(join(tmpdir(), "sponson-cli-"));
  const url = `http://127.0.0.1:${port}`;
  const audience = "https://sponson.cli.test";
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    persistTo,
    "--show-interactive-dev-session=false",
    "--var",
    "EMULATORS:on",
    "--var",
    "AUTH0_CLIENT_SECRET:local-demo-secret",
    "--var",
    `SERVICE_SIGNING_KEY:${signingKey}`,
    "--var",
    `SPONSON_AUDIENCE:${audience}`,
    // The dashboard's local lock hook (workers/dashboard/test-hooks.ts) holds a lock like a stuck run.
    "--var",
    "SPONSON_TEST_HOOKS:on",
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
      process.kill(-child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    }
    rmSync(persistTo, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  project.provide("sponsonUrl", url);
  project.provide("signingKey", signingKey);
  project.provide("audience", audience);
  return stop;
}
