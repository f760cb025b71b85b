/**
 * The CLI finds the local instance as `npm run webhook` does (scripts/start-state.mjs): with no
 * SPONSON_URL, the port this checkout's running `npm start` was given (.wrangler/start.json). And a
 * loopback URL nothing listens on fails at once, naming the URL and SPONSON_URL, instead of being
 * retried for a minute; a remote host that cannot be reached keeps its retries.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CliResult, EXAMPLE_PLAN, ROOT } from "./helpers";

const work = mkdtempSync(join(tmpdir(), "sponson-local-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The bin, in `cwd`, with only the variables given (no SPONSON_URL unless named). */
function sponsonIn(cwd: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, "bin", "sponson.mjs"), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: cwd, SPONSON_TOKEN: "local-test-token", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** A port on loopback nothing listens on: one the system just gave out and was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the CLI finds the local instance", () => {
  it("with no SPONSON_URL, goes to the port this checkout's npm start was given", async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.setHeader("content-type", "application/json");
      res.end('{"locks":[]}');
    });
    const port = await listening(server);
    const checkout = join(work, "checkout");
    mkdirSync(join(checkout, ".wrangler"), { recursive: true });
    // What a running `npm start` leaves: its URL and its own (live) process id.
    writeFileSync(
      join(checkout, ".wrangler", "start.json"),
      JSON.stringify({ url: `http://127.0.0.1:${port}`, port: String(port), pid: process.pid }),
    );
    const { code, stderr } = await sponsonIn(checkout, ["locks"], {});
    server.close();
    expect(received, stderr).toEqual(["GET /v1/locks"]);
    expect(code).toBe(0);
  });
});

describe("a refused connection", () => {
  it("to loopback fails at once, naming the URL and SPONSON_URL, without retries", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const started = performance.now();
    const { code, stdout, stderr } = await sponsonIn(
      work,
      ["apply", "--plan", EXAMPLE_PLAN, "--scope", "pr-1"],
      { SPONSON_URL: url },
    );
    const seconds = (performance.now() - started) / 1000;
    expect(code).toBe(1);
    expect(stderr).toContain(url);
    expect(stderr).toContain("SPONSON_URL");
    expect(stderr).toContain("npm start");
    // Retries print their lines with the run's (stdout).
    expect(stdout).not.toMatch(/retry \d/);
    // Node's start and the plan check take well under this; one retry alone would pause up to 1 s.
    expect(seconds).toBeLessThan(10);
  });

  it("to a remote host is retried as before (control: the budget, not the host, ends it)", async () => {
    // A name that never resolves (RFC 6761 `.invalid`): a network failure that is not loopback.
    const { code, stdout } = await sponsonIn(work, ["apply", "--plan", EXAMPLE_PLAN, "--scope", "pr-1"], {
      SPONSON_URL: "https://sponson.invalid",
      SPONSON_RETRY_SECONDS: "2",
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/NETWORK: .*; retry 1 in/);
  });
});
