/**
 * What `wrangler deploy` would upload (a dry run: bundled, not sent) holds no emulator or test
 * code: checked on esbuild's list of bundled files and by looking for strings only that code has.
 * The same checks on the dev entry's bundle find them, so neither check passes by missing.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const out = mkdtempSync(join(tmpdir(), "sponson-bundle-"));

/** Source files that exist only for the dev entry and the tests. */
const DEV_ONLY_FILE = /^(dev\/|test\/|bench\/)/;
/** Strings only emulator or test-hook code carries (routes, class and binding names, a demo host). */
const DEV_ONLY_STRINGS = [
  "/v1/emulators/",
  "/_test/locks/hold",
  "ProviderEmulator",
  "PROVIDER_EMULATOR",
  "sponson-demo",
];

interface Bundle {
  code: string;
  inputs: string[];
}

async function dryRun(config: string): Promise<Bundle> {
  const dir = join(out, config);
  await promisify(execFile)(
    join(ROOT, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "--config", config, "--outdir", dir, "--metafile", join(dir, "meta.json")],
    {
      cwd: ROOT,
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      timeout: 120_000,
    },
  );
  const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as {
    outputs: Record<string, { inputs?: Record<string, unknown> }>;
  };
  const inputs = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs ?? {}));
  return { code: readFileSync(join(dir, "index.js"), "utf8"), inputs };
}

let prod: Bundle;
let dev: Bundle;
beforeAll(async () => {
  [prod, dev] = await Promise.all([dryRun("wrangler.toml"), dryRun("wrangler.dev.toml")]);
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the production bundle (wrangler deploy --dry-run)", () => {
  it("bundles the production entry and no dev-only or test file", () => {
    expect(prod.inputs).toContain("workers/index.ts");
    expect(prod.inputs.filter((f) => DEV_ONLY_FILE.test(f))).toEqual([]);
    // Control: the dev entry's bundle does hold them.
    expect(dev.inputs).toContain("dev/entry/index.ts");
    expect(dev.inputs.filter((f) => f.startsWith("dev/emulators/")).length).toBeGreaterThan(10);
  });

  it.for(DEV_ONLY_STRINGS)("holds no %s", (text) => {
    expect(prod.code).not.toContain(text);
    expect(dev.code).toContain(text);
  });
});
