/**
 * `npm run keygen -- --rotate | --next [--federation]` (docs/deploy.md, "Rotating a signing key"):
 * each step's ring is one the Worker loads (workers/keys/key-ring.ts), the old current key keeps
 * verifying as previous for one more rotation, then only its kid is left, as retired.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadKeyRing, signingSecretProblem } from "../../workers/keys/key-ring";

const ROOT = join(import.meta.dirname, "..", "..");

function keygen(args: string[], stdin?: string) {
  const run = spawnSync(process.execPath, [join(ROOT, "scripts", "keygen.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    input: stdin ?? "",
  });
  return { code: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

type Entry = { kid: string; status: string; d?: string; kty?: string };
const ring = (stdout: string) => (JSON.parse(stdout) as { keys: Entry[] }).keys;
const statuses = (entries: Entry[]) => entries.map((e) => `${e.status}:${e.kid}`);

describe("keygen --rotate (service key)", () => {
  it("two rotations: the first key verifies as previous, then is retired by kid and its private part is gone", async () => {
    const first = keygen([]);
    expect(first.code).toBe(0);
    const firstKid = (JSON.parse(first.stdout) as Entry).kid;
    const second = keygen(["--rotate"], first.stdout);
    expect(second.code).toBe(0);
    const afterOne = ring(second.stdout);
    expect(afterOne.find((e) => e.kid === firstKid)).toMatchObject({ status: "previous" });
    expect(afterOne.find((e) => e.kid === firstKid)?.d).toBeUndefined();
    expect(second.stderr).toMatch(/admin token \(1 h, signed by the new current key /);
    const third = keygen(["--rotate"], second.stdout);
    const afterTwo = ring(third.stdout);
    expect(afterTwo.find((e) => e.kid === firstKid)).toEqual({ kid: firstKid, status: "retired" });
    expect(afterTwo.filter((e) => e.status === "current")).toHaveLength(1);
    const loaded = await loadKeyRing(third.stdout, { name: "SERVICE_SIGNING_KEY", alg: "EdDSA" });
    expect(loaded.retired).toEqual([firstKid]);
    expect(loaded.verifying.map((k) => k.status).sort()).toEqual(["current", "previous"]);
  });

  it("rotates from the public JWK keygen printed, so no one has to keep the private key", () => {
    const first = keygen([]);
    const publicJwk = /public JWK: (.*)/.exec(first.stderr)?.[1] ?? "";
    const rotated = keygen(["--rotate"], publicJwk);
    expect(rotated.code).toBe(0);
    expect(signingSecretProblem(rotated.stdout, { name: "SERVICE_SIGNING_KEY", alg: "EdDSA" })).toBeNull();
    expect(rotated.stdout).not.toContain((JSON.parse(first.stdout) as Entry).d);
  });

  it("refuses a stdin that is not a key, saying what to give", () => {
    const bad = keygen(["--rotate"], "not json");
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("stdin is not JSON");
  });
});

describe("keygen --federation", () => {
  it("--next publishes a key before it signs; --rotate promotes it, the old one verifies as previous", async () => {
    const first = keygen(["--federation"]);
    expect(first.code).toBe(0);
    const [current] = ring(first.stdout);
    expect(current).toMatchObject({ kty: "RSA", status: "current" });
    const staged = keygen(["--federation", "--next"], first.stdout);
    const next = ring(staged.stdout).find((e) => e.status === "next");
    expect(next?.d).toBeDefined();
    const promoted = ring(keygen(["--federation", "--rotate"], staged.stdout).stdout);
    expect(statuses(promoted)).toEqual([`previous:${current?.kid}`, `current:${next?.kid}`]);
    const loaded = await loadKeyRing(JSON.stringify({ keys: promoted }), {
      name: "FEDERATION_SIGNING_KEY",
      alg: "RS256",
    });
    expect(loaded.signer?.kid).toBe(next?.kid);
  });

  it("an Ed25519 ring is not a federation key", () => {
    const service = keygen([]);
    const wrong = keygen(["--federation", "--rotate"], service.stdout);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("not RS256");
  });
});
