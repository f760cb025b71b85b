/** The dashboard's copy of idiomorph is the installed package's browser build (scripts/vendor-idiomorph.mjs). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { IDIOMORPH_MODULE, idiomorphModule } from "../../scripts/vendor-idiomorph.mjs";

describe("the vendored idiomorph", () => {
  it("is what the installed package builds (run `node scripts/vendor-idiomorph.mjs`)", () => {
    const committed = readFileSync(IDIOMORPH_MODULE, "utf8");
    expect(committed).toContain("idiomorph 0.8.0");
    expect(committed === idiomorphModule()).toBe(true);
  });
});
