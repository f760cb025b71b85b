/** Runs the built `sponson` bin as a child process against the suite's wrangler dev instance. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { calculateJwkThumbprint, importJWK, type JWK, SignJWT } from "jose";
import { inject } from "vitest";

export const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "sponson.mjs");

export const url = () => inject("sponsonUrl");

/** The demo tenant's application every example plan line writes to (examples/plan.json). */
export const DEMO_PARENT = "auth0:sponson-demo.us.auth0.com:client:preview-app";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: nothing of the machine's own CI or GitHub variables leaks into a run. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    HOME: process.env.HOME ?? "/tmp",
  };
  env.SPONSON_URL = url();
  // The suite starts the CLI a few hundred times: Node (22.1 and later) keeps the bundle's compiled
  // code here after the first start instead of compiling its megabyte again each time.
  env.NODE_COMPILE_CACHE = join(scratch, "node-compile-cache");
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function start(
  args: string[],
  env: Record<string, string | undefined> = {},
): ChildProcess & { done: Promise<CliResult> } {
  return run(process.execPath, [BIN, ...args], env);
}

/** Any program, in the CLI's clean environment (with node_modules/.bin first, as npm runs it). */
export function run(
  program: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): ChildProcess & { done: Promise<CliResult> } {
  const child = spawn(program, args, {
    cwd: ROOT,
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  return Object.assign(child, { done });
}

export function sponson(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return start(args, env).done;
}

export async function mintToken(role: "admin" | "ci" | "viewer", scopes?: string[]): Promise<string> {
  const jwk = JSON.parse(inject("signingKey")) as JWK;
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as JWK);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role, ...(scopes ? { scopes } : {}) })
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
    .setIssuer("sponson-edge")
    .setAudience("sponson-edge")
    .setSubject(`cli-test-${role}`)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(await importJWK(jwk, "EdDSA"));
}

let nextPr = 100 + Math.floor(Math.random() * 1_000_000) * 10;
/** A pull request scope no other test of this run uses. */
export function freshPr(): string {
  nextPr += 1;
  return `pr-${nextPr}`;
}

const scratch = mkdtempSync(join(tmpdir(), "sponson-cli-test-"));

/** A file in this run's scratch directory. */
export function scratchFile(name: string, content?: string): string {
  const path = join(scratch, name);
  if (content !== undefined) writeFileSync(path, content);
  return path;
}

export const EXAMPLE_PLAN = join(ROOT, "examples", "plan.json");

/** examples/plan.json with its lines changed, written to a scratch file. */
export function planFile(
  name: string,
  edit: (plan: { lines: Array<Record<string, unknown>> }) => void,
): string {
  const plan = JSON.parse(readFileSync(EXAMPLE_PLAN, "utf8"));
  edit(plan);
  return scratchFile(name, JSON.stringify(plan));
}

/** Holds the demo application's parent lock as a stuck run would (the local test hook). */
export async function holdParentLock(holder: string, ttlSeconds: number): Promise<{ key: string }> {
  const res = await fetch(`${url()}/_test/locks/hold`, {
    method: "POST",
    headers: { authorization: `Bearer ${await mintToken("admin")}`, "content-type": "application/json" },
    body: JSON.stringify({ identity: DEMO_PARENT, holder, ttlSeconds }),
  });
  if (!res.ok) throw new Error(`hold: ${res.status} ${await res.text()}`);
  return (await res.json()) as { key: string };
}
