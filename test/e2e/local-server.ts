/**
 * A real local instance for the browser tests: `wrangler dev` on 127.0.0.1 and free ports, fresh
 * embedded state in a temporary --persist-to directory, the provider emulators on, the lock test
 * hooks on, and a service public key made for this run (its private half signs the tokens here,
 * so nothing is read from or written to the developer's .dev.vars).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";

export interface LocalServer {
  url: string;
  token(role: "viewer" | "ci" | "admin", sub: string): Promise<string>;
  stop(): Promise<void>;
  log(): string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function untilHealthy(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${output()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not answer /healthz within ${timeoutMs} ms:\n${output()}`);
}

export async function startLocalServer(): Promise<LocalServer> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const persistTo = mkdtempSync(join(tmpdir(), "sponson-e2e-"));
  const url = `http://127.0.0.1:${port}`;
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
    "--var",
    "EMULATORS:on",
    "--var",
    "AUTH0_CLIENT_SECRET:local-demo-secret",
    "--var",
    "SPONSON_TEST_HOOKS:on",
    "--var",
    `SERVICE_PUBLIC_KEY:${JSON.stringify({ ...publicJwk, kid })}`,
  ];
  let output = "";
  const child = spawn(join("node_modules", ".bin", "wrangler"), args, {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1" },
  });
  child.stdout?.on("data", (d) => {
    output += String(d);
  });
  child.stderr?.on("data", (d) => {
    output += String(d);
  });
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((r) => child.once("exit", r));
      // The group we started (wrangler and its workerd), by id.
      process.kill(-child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    }
    rmSync(persistTo, { recursive: true, force: true });
  };
  try {
    await untilHealthy(url, child, () => output, 90_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    log: () => output,
    stop,
    async token(role, sub) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ role })
        .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
        .setIssuer("sponson-edge")
        .setAudience("sponson-edge")
        .setSubject(sub)
        .setIssuedAt(now)
        .setExpirationTime(now + 900)
        .sign(privateKey);
    },
  };
}
