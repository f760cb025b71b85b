/**
 * `npm run webhook` sends to the instance `npm start` serves in this checkout, on whatever port it
 * was given (its state file, .wrangler/start.json), not always :8787.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "sponson-webhook-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm run webhook", () => {
  it("goes to the port npm start was given", async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.setHeader("content-type", "application/json");
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    mkdirSync(join(work, ".wrangler"));
    // What a running `npm start` leaves: its URL, and its own (live) process id.
    writeFileSync(
      join(work, ".wrangler", "start.json"),
      JSON.stringify({ url: `http://127.0.0.1:${port}`, port: String(port), pid: process.pid }),
    );
    writeFileSync(join(work, ".dev.vars"), "GITHUB_WEBHOOK_SECRET=local-test-secret\n");
    const child = spawn(process.execPath, [join(ROOT, "scripts", "webhook.mjs"), "closed", "--pr", "5"], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "", HOME: work },
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    server.close();
    expect(received, stderr).toEqual(["POST /v1/webhooks/github"]);
    expect(code).toBe(0);
  });
});
