/** The receipt layout before 0.2.0 (workers/upgrade/legacy-receipt-keys.ts) and the current one never read as each other. */
import { describe, expect, it } from "vitest";
import { parseReceiptKey } from "../../workers/receipts/layout";
import { legacyReceiptKey, parseLegacyReceiptKey } from "../../workers/upgrade/legacy-receipt-keys";

describe("the receipt key before scopes carried a repository", () => {
  it("is receipts/<environment>/<scope>.json and never reads as a repository-keyed one, nor that as it", () => {
    expect(legacyReceiptKey("preview", "pr-12")).toBe("receipts/preview/pr-12.json");
    expect(parseReceiptKey("receipts/preview/pr-12.json")).toBeNull();
    expect(parseLegacyReceiptKey("receipts/preview/branch-a/b.json")).toEqual({
      environment: "preview",
      scope: "branch-a/b",
    });
    expect(parseLegacyReceiptKey("receipts/7/preview/pr-1.json")).toBeNull();
    expect(() => legacyReceiptKey("Preview", "pr-1")).toThrow();
  });
});
