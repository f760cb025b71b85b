/**
 * `npm start` (scripts/start.mjs) against a stand-in `wrangler` that records what it was given:
 * no secret on the command line (`ps` shows arguments to every user), all of them in an
 * owner-only env file that .dev.vars wins over, the port recorded for `npm run webhook`, and a
 * first start that says it loads the key it made (no "restart" it does not need), and the local
 * write policy (examples/policy.local.json) in force.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "sponson-start-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The stand-in: its arguments one per line, and copies of the files it was pointed at, made while
// `npm start` runs (they are removed when it stops).
const bin = join(work, "bin");
const seen = join(work, "seen");
mkdirSync(bin);
writeFileSync(
  join(bin, "wrangler"),
  `#!/bin/sh
mkdir -p "${seen}"
for a in "$@"; do printf '%s\\n' "$a"; done > "${seen}/argv"
cp .wrangler/start.env "${seen}/start.env"
stat -c %a .wrangler/start.env > "${seen}/mode"
cp .wrangler/start.json "${seen}/start.json"
`,
);
chmodSync(join(bin, "wrangler"), 0o755);

describe("npm start", () => {
  it("passes every secret through the env file, records its port, and asks for no restart", () => {
    const checkout = join(work, "checkout");
    mkdirSync(checkout);
    // A value of the developer's own with a `$`, which wrangler's env-file loader would expand.
    writeFileSync(join(checkout, ".dev.vars"), "OKTA_API_TOKEN='mine$HOME'\n");
    const run = spawnSync(process.execPath, [join(ROOT, "scripts", "start.mjs")], {
      cwd: checkout,
      encoding: "utf8",
      timeout: 30_000,
      env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: work, PORT: "8931" },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("generated a service signing key in .dev.vars; this start loads it");
    expect(run.stderr).not.toContain("restart");

    const argv = readFileSync(join(seen, "argv"), "utf8");
    const env = parseEnv(readFileSync(join(seen, "start.env"), "utf8"));
    const devVars = parseEnv(readFileSync(join(checkout, ".dev.vars"), "utf8"));
    expect(argv.split("\n")).toEqual(
      expect.arrayContaining(["--env-file", ".wrangler/start.env", "--port", "8931"]),
    );
    expect(argv).not.toContain("--var");
    for (const secret of [
      devVars.SERVICE_SIGNING_KEY,
      devVars.GITHUB_WEBHOOK_SECRET,
      env.GOOGLE_SERVICE_ACCOUNT_KEY,
      env.AUTH0_CLIENT_SECRET,
    ]) {
      expect(secret).toBeTruthy();
      expect(argv).not.toContain(secret);
    }
    expect(argv).not.toContain("PRIVATE KEY");
    expect(JSON.parse(env.GOOGLE_SERVICE_ACCOUNT_KEY ?? "{}").private_key).toContain("BEGIN PRIVATE KEY");
    expect(env.SERVICE_SIGNING_KEY).toBe(devVars.SERVICE_SIGNING_KEY);
    // The local federation issuer (docs/deploy.md, "Keyless connections"): an RS256 ring made in
    // .dev.vars on first use, never printed or on the command line, and the issuer's URL.
    const ring = JSON.parse(devVars.FEDERATION_SIGNING_KEY ?? "{}") as {
      keys?: Array<Record<string, unknown>>;
    };
    expect(ring.keys?.map((k) => [k.kty, k.status, typeof k.d])).toEqual([["RSA", "current", "string"]]);
    expect(env.FEDERATION_SIGNING_KEY).toBe(devVars.FEDERATION_SIGNING_KEY);
    expect(env.SPONSON_PUBLIC_URL).toBe("https://sponson.localhost");
    expect(argv).not.toContain(String(ring.keys?.[0]?.d));
    expect(run.stdout + run.stderr).not.toContain(String(ring.keys?.[0]?.d));
    expect(env.GITHUB_WEBHOOK_SECRET).toBe(devVars.GITHUB_WEBHOOK_SECRET);
    expect(JSON.parse(env.SPONSON_REPOSITORIES ?? "[]")).toEqual([
      { name: "Codertocat/Hello-World", id: 186853002 },
    ]);
    // A write policy, as in production (test/repo/preview-policy.test.ts): not the open local fallback.
    expect(JSON.parse(env.SPONSON_POLICY ?? "null")).toEqual(
      JSON.parse(readFileSync(join(ROOT, "examples", "policy.local.json"), "utf8")),
    );
    // .dev.vars wins, its `$` escaped so wrangler's loader keeps it literal.
    expect(readFileSync(join(seen, "start.env"), "utf8")).toContain("OKTA_API_TOKEN='mine\\$HOME'");
    expect(readFileSync(join(seen, "mode"), "utf8").trim()).toBe("600");
    expect(JSON.parse(readFileSync(join(seen, "start.json"), "utf8"))).toMatchObject({
      url: "http://127.0.0.1:8931",
    });
    // Stopped: neither file is left behind.
    expect(existsSync(join(checkout, ".wrangler", "start.env"))).toBe(false);
    expect(existsSync(join(checkout, ".wrangler", "start.json"))).toBe(false);
  });
});
