/**
 * The adoption patterns the docs and `sponson adopt --help` print are real items (docs/deploy.md,
 * "Day one: existing entries"; docs/cli.md, "adopt"): an adopted entry stays only while a plan
 * line of its pull request names it, so a pattern must be the item an example plan's line of that
 * op writes, and be admitted as `sponson adopt` admits it (the op's params, origins' shape, the URL
 * shape check). `{branch}` patterns name no example line; they are admitted.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePattern } from "../../shared/adoption-patterns";
import { planSchema } from "../../shared/schemas/plan";
import { itemShapeProblems } from "../../shared/url-shape";
import { ADAPTERS } from "../../workers/adapters";
import { admissionParams } from "../../workers/engine/plan/item-shape";
import { OpRegistry } from "../../workers/engine/plan/op-registry";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const ops = new OpRegistry(ADAPTERS);

/** Every example plan line: op, its item, and the params that name its object. */
const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((f) => f === "plan.json" || f.endsWith(".plan.json"))
  .flatMap((f) => planSchema.parse(JSON.parse(read(`examples/${f}`))).lines)
  .map((line) => {
    const op = ops.get(line.op);
    if (!op) throw new Error(`unknown op ${line.op}`);
    const { [op.itemParam]: item, ...object } = line.params as Record<string, string>;
    return { op: line.op, item, object };
  });

interface DocPattern {
  where: string;
  op: string;
  pattern: string;
}

/** docs/deploy.md's table of patterns, one row per list shape (each op of a row). */
function tableRows(): DocPattern[] {
  const text = read("docs/deploy.md");
  const section = text.slice(text.indexOf("## 9. Day one: existing entries"));
  return [...section.matchAll(/^ *\| (.+?) +\| `([^`]+)` +\|$/gm)].flatMap((m) =>
    [...(m[1] as string).matchAll(/`([a-z0-9]+\.[A-Za-z]+)`/g)].map((op) => ({
      where: "docs/deploy.md table",
      op: op[1] as string,
      pattern: m[2] as string,
    })),
  );
}

/** Every `sponson adopt … --op <op> … --pattern '<p>'` the docs print. */
function commands(): DocPattern[] {
  return ["docs/deploy.md", "docs/cli.md", "cli/adopt-spec.ts"].flatMap((file) =>
    [...read(file).matchAll(/sponson adopt ((?:[^\n]*\\\n)*[^\n]*)/g)].flatMap((m) => {
      const args = m[1] as string;
      const op = /--op (\S+)/.exec(args)?.[1];
      if (!op) return [];
      return [...args.matchAll(/--pattern '([^']+)'/g)].map((p) => ({
        where: `${file} command`,
        op,
        pattern: p[1] as string,
      }));
    }),
  );
}

/** Why `pattern` is no item of `op` as an adoption admits it; null when it is one. */
function problem({ op: name, pattern }: DocPattern): string | null {
  const op = ops.get(name);
  if (!op) return `unknown op ${name}`;
  const parsed = parsePattern(pattern, "preview");
  if (!parsed.ok) return parsed.problem;
  const { kind, prefix, suffix } = parsed.pattern;
  const examples = EXAMPLES.filter((e) => e.op === name);
  if (kind === "pr" && !examples.some((e) => e.item === pattern))
    return `no example plan line of ${name} writes it (they write ${examples.map((e) => e.item).join(", ")})`;
  const item = `${prefix}${kind === "branch" ? "main" : "1"}${suffix}`;
  const object = examples[0]?.object ?? {};
  const params = admissionParams(op).safeParse({ ...object, [op.itemParam]: item });
  if (!params.success) return `${item}: ${params.error.issues.map((i) => i.message).join("; ")}`;
  const shape = itemShapeProblems(item)[0];
  return shape ? `${item}: ${shape.rule}` : null;
}

describe("adoption patterns in the docs are the example plans' items", () => {
  const rows = tableRows();
  const printed = commands();

  it("docs/deploy.md's table names a pattern for each list shape, and the docs print commands", () => {
    expect(rows.map((r) => r.op)).toEqual(
      expect.arrayContaining(["auth0.callbackUrl", "auth0.webOrigin", "supabase.redirectUrl"]),
    );
    expect(printed.length).toBeGreaterThanOrEqual(4);
  });

  it("each pattern is an item an example plan's line of its op writes, admitted as adopt admits it", () => {
    const wrong = [...rows, ...printed]
      .map((p) => ({ ...p, problem: problem(p) }))
      .filter((p) => p.problem !== null);
    expect(wrong).toEqual([]);
  });

  it("control: a callback pattern without its path, or an origin with one, is refused", () => {
    const callback = {
      where: "control",
      op: "auth0.callbackUrl",
      pattern: "https://pr-{pr}.preview.example.com",
    };
    expect(problem(callback)).toContain("no example plan line of auth0.callbackUrl writes it");
    const origin = { where: "control", op: "auth0.webOrigin", pattern: "https://pr-{branch}.example.com/" };
    expect(problem(origin)).toContain("an origin");
  });
});
