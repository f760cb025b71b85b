/**
 * docs/configuration.md's tables of vars and secrets cannot miss one: they are generated from
 * workers/config/var-catalogue.ts (`npm run docs:config`), the committed tables are what it
 * generates, and the catalogue names exactly the vars and secrets the Worker's code reads: every
 * name the config reads (CONFIG_VARS), every queue var, and every var-like name in the sources of
 * what ships (workers/, durable-objects/, shared/), bindings aside.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { configTables, marker, withTables } from "../../scripts/config-docs.mjs";
import { CONFIG_VARS } from "../../workers/config/config";
import * as catalogue from "../../workers/config/var-catalogue";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIGURATION = readFileSync(join(ROOT, "docs", "configuration.md"), "utf8");
const listed = new Set([...catalogue.VARS, ...catalogue.SECRETS].map((e) => e.name));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every binding of the root wrangler.toml: names the code reads from env that are no vars. */
function bindings(): Set<string> {
  const config = parse(readFileSync(join(ROOT, "wrangler.toml"), "utf8")) as Record<string, unknown>;
  const names = new Set<string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) for (const v of value) walk(v);
    else if (typeof value === "object" && value !== null) {
      const entry = value as Record<string, unknown>;
      for (const key of ["binding", "name"])
        if (typeof entry[key] === "string") names.add(entry[key] as string);
      for (const [key, v] of Object.entries(entry)) if (key !== "vars") walk(v);
    }
  };
  walk(config);
  return names;
}

/** Names the shipped code reads as vars: quoted SPONSON_/SERVICE_/… names, and env.NAME / vars.NAME. */
function namesInCode(): Set<string> {
  const found = new Set<string>();
  const quoted =
    /["'`]((?:SPONSON|SERVICE|GITHUB|FEDERATION)_[A-Z0-9_]*[A-Z0-9]|[A-Z][A-Z0-9_]*_(?:SECONDS|QUEUE|KEY|SECRET|URL))["'`]/g;
  const property = /\b(?:env|vars|v)\.([A-Z][A-Z0-9_]+)\b/g;
  for (const file of ["workers", "durable-objects", "shared"].flatMap(sources)) {
    if (file === "workers/config/var-catalogue.ts") continue;
    // Comments mention names (`{vars.URL}`) the code does not read.
    const text = readFileSync(join(ROOT, file), "utf8")
      .replaceAll(/\/\*[\s\S]*?\*\//g, "")
      .replaceAll(/(^|\s)\/\/.*$/gm, "$1");
    for (const m of text.matchAll(quoted)) found.add(m[1] as string);
    for (const m of text.matchAll(property)) found.add(m[1] as string);
  }
  for (const binding of bindings()) found.delete(binding);
  return found;
}

describe("the vars and secrets tables of docs/configuration.md", () => {
  it("are what the catalogue generates (npm run docs:config)", () => {
    const tables = configTables(catalogue);
    for (const table of Object.keys(tables)) {
      const { begin, end } = marker(table);
      expect(CONFIGURATION, table).toContain(begin);
      expect(CONFIGURATION, table).toContain(end);
    }
    expect(withTables(CONFIGURATION, tables)).toBe(CONFIGURATION);
  });

  it("list every var the config reads, and the queue names", () => {
    const queues = [
      "SPONSON_DESTROY_QUEUE",
      "SPONSON_DEAD_LETTER_QUEUE",
      "SPONSON_NOTIFY_QUEUE",
      "SPONSON_NOTIFY_DEAD_LETTER_QUEUE",
    ];
    expect([...CONFIG_VARS, ...queues].filter((name) => !listed.has(name))).toEqual([]);
  });

  it("list every var-like name the shipped code reads, and nothing it does not read", () => {
    const inCode = namesInCode();
    expect(inCode.size).toBeGreaterThan(20);
    expect(unlisted(inCode, listed)).toEqual([]);
    const named = [...listed].filter((name) => /^[A-Z][A-Z0-9_]+$/.test(name));
    expect(named.filter((name) => !inCode.has(name)).sort()).toEqual([]);
  });

  it("control: a var the code reads that the catalogue lacks is seen", () => {
    const fewer = new Set([...listed].filter((name) => name !== "SPONSON_PUBLIC_URL"));
    expect(unlisted(namesInCode(), fewer)).toEqual(["SPONSON_PUBLIC_URL"]);
  });
});

function unlisted(names: Set<string>, catalogued: Set<string>): string[] {
  return [...names].filter((name) => !catalogued.has(name)).sort();
}
