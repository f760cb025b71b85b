/**
 * The error catalogue has one source, shared/errors.ts, and one reference page, docs/design.md's
 * "Errors" table: every code the service answers has a row there with the status and `retriable`
 * the code table gives, and the page lists no code the service does not know. A code added without
 * its row (or a row left behind) fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_TABLE } from "../../shared/errors";

const ROOT = join(import.meta.dirname, "..", "..");
const design = readFileSync(join(ROOT, "docs", "design.md"), "utf8");
const errors = design.slice(design.indexOf("\n## Errors"));

/** `| `CODE` | status | retriable | meaning |` rows of the section's table. */
const rows = new Map(
  [...errors.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|\s*(yes|no)\s*\|/gm)].map((m) => [
    m[1] as string,
    { status: Number(m[2]), retriable: m[3] === "yes" },
  ]),
);

describe("docs/design.md's Errors table", () => {
  it("has a row for every code, with its status and retriable", () => {
    for (const code of ERROR_CODES)
      expect(rows.get(code), code).toEqual({
        status: ERROR_TABLE[code].status,
        retriable: ERROR_TABLE[code].retriable,
      });
  });

  it("names no code the service does not have", () => {
    expect([...rows.keys()].filter((code) => !(ERROR_CODES as readonly string[]).includes(code))).toEqual([]);
  });
});
