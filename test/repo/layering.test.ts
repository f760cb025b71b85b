/**
 * The layers read top-down, checked on every import and export specifier of every source file,
 * type-only ones included, each resolved against its file's folder:
 * - `shared/` is the ground floor and imports nothing from `workers/`, `durable-objects/` or `dev/`,
 *   so all of them can depend on it and it on none.
 * - `dev/` (the emulators, the dev entry, the emulator object) is never reached from what ships:
 *   only dev/ itself, test/ and bench/ import it, so the production entry cannot bundle it.
 * - `durable-objects/` (the lock layer) imports nothing from `workers/`: what it needs of the Worker
 *   (the notifications transport, the service-token deny list) comes in through its constructors
 *   (workers/wiring/objects.ts), so the objects depend on `shared/` alone.
 * - The adapters (`workers/adapters/`, their contract op-spec.ts included) never reach the engine,
 *   directly or through another module: the engine depends on the adapters, not both ways.
 * - Inside the engine, the group write (`write/`) imports nothing from the run layer (`run/`): what
 *   it needs of a run and its receipt session is a contract in write/run-contract.ts that run/
 *   implements, so the run drives the writes and never the other way round.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SKIP = new Set(["node_modules", ".git", ".wrangler", "dist", "test-artifacts"]);
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SPECIFIER =
  /(?:^|\s)(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

interface Source {
  /** Repository-relative, with `/`. */
  path: string;
  text: string;
}

interface Rule {
  name: string;
  from: RegExp;
  to: RegExp;
}

const RULES: Rule[] = [
  { name: "shared/ imports no upper layer", from: /^shared\//, to: /^(workers|durable-objects|dev)(\/|$)/ },
  {
    name: "durable-objects/ imports nothing from workers/",
    from: /^durable-objects\//,
    to: /^workers(\/|$)/,
  },
  { name: "only dev/, test/ and bench/ import dev/", from: /^(?!(dev|test|bench)\/)/, to: /^dev(\/|$)/ },
  {
    name: "the adapters never import the engine",
    from: /^workers\/adapters\//,
    to: /^workers\/engine(\/|$)/,
  },
  {
    name: "the engine's write/ imports nothing from run/",
    from: /^workers\/engine\/write\//,
    to: /^workers\/engine\/run(\/|$)/,
  },
];

function repoPath(absolute: string): string {
  return relative(ROOT, absolute).split("\\").join("/");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/** The relative specifiers of one file, resolved to repository paths (no extension added). */
function targetsOf({ path, text }: Source): string[] {
  const targets: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec?.startsWith(".")) targets.push(repoPath(resolve(ROOT, dirname(path), spec)));
  }
  return targets;
}

/** Every `file -> target` import that breaks a rule. */
function violations(files: Source[], rules: Rule[] = RULES): string[] {
  return files.flatMap((file) =>
    targetsOf(file)
      .filter((target) => rules.some((r) => r.from.test(file.path) && r.to.test(target)))
      .map((target) => `${file.path} -> ${target}`),
  );
}

/** The source file a resolved specifier names, as the bundler would find it; undefined outside the tree. */
function fileOf(target: string): string | undefined {
  for (const suffix of ["", ".ts", ".tsx", "/index.ts", "/index.tsx"]) {
    const candidate = join(ROOT, target + suffix);
    if (existsSync(candidate) && statSync(candidate).isFile()) return repoPath(candidate);
  }
  return undefined;
}

/** Every file reachable from `start` by relative imports. */
function reachable(start: string[], files: Map<string, Source>): Set<string> {
  const seen = new Set(start);
  const queue = [...start];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    const file = files.get(path);
    if (!file) continue;
    for (const next of targetsOf(file).map(fileOf)) {
      if (next && !seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

const all: Source[] = sourceFiles(ROOT).map((abs) => ({
  path: repoPath(abs),
  text: readFileSync(abs, "utf8"),
}));

describe("layering", () => {
  it("reads every layer it checks", () => {
    for (const folder of [
      "shared/",
      "dev/emulators/",
      "dev/entry/",
      "durable-objects/",
      "workers/adapters/",
      "workers/engine/",
    ]) {
      expect(all.filter((f) => f.path.startsWith(folder)).length, folder).toBeGreaterThan(2);
    }
    expect(all.map((f) => f.path)).toContain("workers/index.ts");
  });

  it("no import breaks a layer rule", () => {
    expect(violations(all)).toEqual([]);
  });

  it("neither the production entry nor the adapters reach dev/ or (for the adapters) the engine", () => {
    const files = new Map(all.map((f) => [f.path, f]));
    const fromEntry = [...reachable(["workers/index.ts"], files)];
    expect(fromEntry).toContain("workers/engine/engine.ts");
    expect(fromEntry.filter((p) => p.startsWith("dev/"))).toEqual([]);
    const adapters = all.map((f) => f.path).filter((p) => p.startsWith("workers/adapters/"));
    const fromAdapters = [...reachable(adapters, files)];
    expect(fromAdapters).toContain("shared/errors.ts");
    expect(fromAdapters.filter((p) => p.startsWith("workers/engine/"))).toEqual([]);
  });

  it("the check finds an upward import, a type-only one, a multi-line one and each rule's breach", () => {
    const shared = [
      'import { x } from "../workers/app";',
      'import type { LeaseLock } from "../durable-objects/lease-lock";',
      "import {\n  a,\n  b,\n} from '../workers/config/config';",
      'export * from "../durable-objects/scope-state";',
      'import { ok } from "./errors";',
    ].join("\n");
    expect(
      violations([
        { path: "shared/example.ts", text: shared },
        { path: "workers/index.ts", text: 'export { ProviderEmulator } from "../dev/provider-emulator";' },
        { path: "workers/adapters/x/index.ts", text: 'import type { Deps } from "../../engine/deps";' },
        { path: "test/helpers/app.ts", text: 'import { createDevApp } from "../../dev/entry/dev-app";' },
        { path: "dev/entry/index.ts", text: 'import { workerHandlers } from "../../workers/worker";' },
        { path: "workers/engine/engine.ts", text: 'import type { OpSpec } from "../adapters/op-spec";' },
        {
          path: "durable-objects/x.ts",
          text: 'import type { Notification } from "../workers/notify/notification";',
        },
        { path: "durable-objects/y.ts", text: 'import { LeaseLock } from "./lease-lock";' },
        { path: "workers/engine/write/x.ts", text: 'import type { Run } from "../run/run";' },
        { path: "workers/engine/run/x.ts", text: 'import type { Fence } from "../write/fence";' },
      ]),
    ).toEqual([
      "shared/example.ts -> workers/app",
      "shared/example.ts -> durable-objects/lease-lock",
      "shared/example.ts -> workers/config/config",
      "shared/example.ts -> durable-objects/scope-state",
      "workers/index.ts -> dev/provider-emulator",
      "workers/adapters/x/index.ts -> workers/engine/deps",
      "durable-objects/x.ts -> workers/notify/notification",
      "workers/engine/write/x.ts -> workers/engine/run/run",
    ]);
  });
});
