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
 * - Inside the engine (`workers/engine/`), from the bottom: `plan/` (a plan's lines and items) and
 *   `rules/` (pure decisions, which import nothing of the engine but `plan/`: what they decide on,
 *   such as the scope state and a queued destroy's guard, is a type of their own that deps.ts and
 *   run/ re-use); the contracts; `lease/` (a run's lease options, the parent lease a group is
 *   written under, the ownership its lock keeps); then `capacity/` and `combining/`, which import of
 *   the engine only those four; then the group write (`write/`), which imports nothing from the run
 *   layer (`run/`), so the run drives the writes and never the other way round.
 * - A contract is a module that declares only types: each of its statements is an interface, a
 *   type alias or a type-only import or export (`import type`, `export type`), so nothing of it
 *   exists at run time. The contracts are the files of `workers/engine/contracts/` (what the
 *   engine's layers hand each other: a run and its receipt session as write/ sees them, a run's
 *   parts, a group's context) and `workers/engine/deps.ts` (what the engine depends on).
 * - The engine's folder graph (each folder of workers/engine/ a node, each file at its top one too,
 *   an edge for every import between two of them) has no cycle.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
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
  {
    name: "the engine's rules/ import nothing of the engine but plan/",
    from: /^workers\/engine\/rules\//,
    to: /^workers\/engine\/(?!(rules|plan)\/)/,
  },
  {
    name: "the engine's lease/ imports of the engine only plan/, rules/ and contracts",
    from: /^workers\/engine\/lease\//,
    to: /^workers\/engine\/(?!(lease|plan|rules|contracts)\/|deps$)/,
  },
  {
    name: "the engine's capacity/ imports of the engine only plan/, rules/, lease/ and contracts",
    from: /^workers\/engine\/capacity\//,
    to: /^workers\/engine\/(?!(capacity|plan|rules|lease|contracts)\/|deps$)/,
  },
  {
    name: "the engine's combining/ imports of the engine only plan/, rules/, lease/ and contracts",
    from: /^workers\/engine\/combining\//,
    to: /^workers\/engine\/(?!(combining|plan|rules|lease|contracts)\/|deps$)/,
  },
];

const ENGINE = "workers/engine/";
/** The contracts (see the header): type-only modules, what the layers may share without coupling. */
const CONTRACT = /^workers\/engine\/(contracts\/[^/]+|deps\.ts)$/;

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

/** Each statement of a contract that is not a type: `path:line: text`. */
function notTypeOnly({ path, text }: Source): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const typeOnly = (s: ts.Statement) =>
    ts.isInterfaceDeclaration(s) ||
    ts.isTypeAliasDeclaration(s) ||
    (ts.isImportDeclaration(s) && s.importClause?.isTypeOnly === true) ||
    (ts.isExportDeclaration(s) && s.isTypeOnly);
  return file.statements
    .filter((s) => !typeOnly(s))
    .map((s) => {
      const line = file.getLineAndCharacterOfPosition(s.getStart()).line + 1;
      return `${path}:${line}: ${s.getText().split("\n")[0]}`;
    });
}

/** The engine node a repository path belongs to: its folder under workers/engine/, or its top file. */
function engineNode(path: string): string | undefined {
  if (!path.startsWith(ENGINE)) return undefined;
  return path
    .slice(ENGINE.length)
    .split("/")[0]
    ?.replace(/\.(ts|tsx)$/, "");
}

/** The engine's folder graph: each node's set of the other nodes it imports. */
function folderGraph(files: Source[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const from = engineNode(file.path);
    if (from === undefined) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targetsOf(file)) {
      const to = engineNode(target);
      if (to !== undefined && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** One cycle of the graph as `a -> b -> a`, or null when it has none (a depth-first search). */
function cycleOf(graph: Map<string, Set<string>>): string | null {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): string | null => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node].join(" -> ");
    if (done.has(node)) return null;
    path.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(node);
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
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
      "workers/engine/rules/",
      "workers/engine/contracts/",
      "workers/engine/lease/",
      "workers/engine/capacity/",
      "workers/engine/combining/",
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
        {
          path: "workers/engine/rules/x.ts",
          text: [
            'import type { Item } from "../plan/item";',
            'import { ownerOf } from "./ownership";',
            'import type { ScopeSnapshot } from "../deps";',
            'import type { Run } from "../run/run";',
          ].join("\n"),
        },
        {
          path: "workers/engine/capacity/x.ts",
          text: [
            'import type { GroupContext } from "../contracts/group-context";',
            'import type { EngineDeps } from "../deps";',
            'import { runLeaseOptions } from "../lease/lease-settings";',
            'import { listFull } from "./list-fill";',
            'import type { Fence } from "../write/fence";',
            'import { meteredDeps } from "../run/metered-deps";',
          ].join("\n"),
        },
        {
          path: "workers/engine/combining/x.ts",
          text: 'import { ownerOf } from "../rules/ownership";\nimport { errorInfo } from "../run/run";',
        },
        {
          path: "workers/engine/lease/x.ts",
          text: 'import { SectionCapacity } from "../capacity/section-capacity";',
        },
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
      "workers/engine/rules/x.ts -> workers/engine/deps",
      "workers/engine/rules/x.ts -> workers/engine/run/run",
      "workers/engine/capacity/x.ts -> workers/engine/write/fence",
      "workers/engine/capacity/x.ts -> workers/engine/run/metered-deps",
      "workers/engine/combining/x.ts -> workers/engine/run/run",
      "workers/engine/lease/x.ts -> workers/engine/capacity/section-capacity",
    ]);
  });

  it("every contract declares only types", () => {
    const contracts = all.filter((f) => CONTRACT.test(f.path));
    expect(contracts.map((f) => f.path)).toContain("workers/engine/deps.ts");
    expect(contracts.filter((f) => f.path.startsWith(`${ENGINE}contracts/`)).length).toBeGreaterThan(2);
    expect(contracts.flatMap(notTypeOnly)).toEqual([]);
  });

  it("the contract check finds every statement that exists at run time", () => {
    const text = [
      'import type { A } from "./a";',
      'export type { B } from "./b";',
      "/** A comment. */",
      "export interface C {\n  a: A;\n}",
      "export type D = C | null;",
      'import { e } from "./e";',
      'import { type F } from "./f";',
      "export const G = 1;",
      "export function h(): void {}",
      "export class I {}",
      'export { e } from "./e";',
    ].join("\n");
    expect(notTypeOnly({ path: "workers/engine/contracts/x.ts", text })).toEqual([
      'workers/engine/contracts/x.ts:8: import { e } from "./e";',
      'workers/engine/contracts/x.ts:9: import { type F } from "./f";',
      "workers/engine/contracts/x.ts:10: export const G = 1;",
      "workers/engine/contracts/x.ts:11: export function h(): void {}",
      "workers/engine/contracts/x.ts:12: export class I {}",
      'workers/engine/contracts/x.ts:13: export { e } from "./e";',
    ]);
  });

  it("the engine's folder graph has no cycle", () => {
    const graph = folderGraph(all);
    // The graph is read: the group write imports the lists' capacity, the run the group write.
    expect([...(graph.get("write") ?? [])]).toContain("capacity");
    expect([...(graph.get("run") ?? [])]).toContain("write");
    expect(cycleOf(graph)).toBeNull();
  });

  it("the cycle check finds a cycle through folders and top files, and names it", () => {
    const graph = folderGraph([
      { path: "workers/engine/write/a.ts", text: 'import { b } from "../capacity/b";' },
      { path: "workers/engine/capacity/b.ts", text: 'import type { C } from "../deps";' },
      { path: "workers/engine/deps.ts", text: 'import type { D } from "./write/d";' },
      { path: "workers/engine/plan/e.ts", text: 'import { f } from "./f";\nimport { x } from "../../x";' },
    ]);
    expect(Object.fromEntries([...graph].map(([node, to]) => [node, [...to]]))).toEqual({
      write: ["capacity"],
      capacity: ["deps"],
      deps: ["write"],
      plan: [],
    });
    expect(cycleOf(graph)).toBe("capacity -> deps -> write -> capacity");
    graph.set("deps", new Set());
    expect(cycleOf(graph)).toBeNull();
  });
});
