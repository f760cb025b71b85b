/**
 * Every Markdown table of the README, CONTRIBUTING.md and docs/ has one separator row, right under
 * its header: a stray `| --- |` row in the middle renders as a row of dashes (README's configuration
 * table had one).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FILES = [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const SEPARATOR = /^\|(?:\s*:?-{3,}:?\s*\|)+\s*$/;

/** `file:line` of each separator row that is not its table's second line. */
function straySeparators(text: string, file: string): string[] {
  const lines = text.split("\n");
  const stray: string[] = [];
  let row = 0;
  lines.forEach((line, i) => {
    row = line.startsWith("|") ? row + 1 : 0;
    if (SEPARATOR.test(line) && row !== 2) stray.push(`${file}:${i + 1}`);
  });
  return stray;
}

describe("Markdown tables", () => {
  it("have their separator row under the header only", () => {
    expect(FILES.flatMap((f) => straySeparators(readFileSync(join(ROOT, f), "utf8"), f))).toEqual([]);
  });

  it("control: a separator row in the middle of a table is found", () => {
    expect(
      straySeparators("| a | b |\n| --- | --- |\n| 1 | 2 |\n| --- | --- |\n| 3 | 4 |\n", "t.md"),
    ).toEqual(["t.md:4"]);
  });
});
