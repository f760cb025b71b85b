/**
 * The layers read top-down: `shared/` is the ground floor and imports nothing from `workers/` or
 * `durable-objects/` (types included), so both can depend on it and it on neither. Checked on every
 * import and export specifier of every file under shared/, resolved against the file's folder.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SHARED = join(ROOT, "shared");
const SPECIFIER =
  /(?:^|\s)(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every (file, target) pair where a shared/ file reaches above the ground floor. */
function upwardImports(files: { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec?.startsWith(".")) continue;
      const target = relative(ROOT, resolve(dirname(path), spec))
        .split("\\")
        .join("/");
      if (/^(workers|durable-objects)(\/|$)/.test(target)) found.push(`${relative(ROOT, path)} -> ${target}`);
    }
  }
  return found;
}

describe("layering", () => {
  it("shared/ imports nothing from workers/ or durable-objects/", () => {
    const files = sourceFiles(SHARED).map((path) => ({ path, text: readFileSync(path, "utf8") }));
    expect(files.length).toBeGreaterThan(10);
    expect(upwardImports(files)).toEqual([]);
  });

  it("the check finds an upward import, a type-only one and a multi-line one", () => {
    const path = join(SHARED, "example.ts");
    const text = [
      'import { x } from "../workers/app";',
      'import type { LeaseLock } from "../durable-objects/lease-lock";',
      "import {\n  a,\n  b,\n} from '../workers/config/config';",
      'export * from "../durable-objects/scope-state";',
      'import { ok } from "./errors";',
    ].join("\n");
    expect(upwardImports([{ path, text }])).toEqual([
      "shared/example.ts -> workers/app",
      "shared/example.ts -> durable-objects/lease-lock",
      "shared/example.ts -> workers/config/config",
      "shared/example.ts -> durable-objects/scope-state",
    ]);
  });
});
