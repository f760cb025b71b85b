import { describe, expect, it } from "vitest";
import { parseReceiptKey, receiptKey, receiptPrefix } from "../../workers/receipts/layout";

describe("receipt key layout", () => {
  it("is receipts/<environment>/<scope>.json and parses back", () => {
    expect(receiptKey("preview", "pr-12")).toBe("receipts/preview/pr-12.json");
    expect(parseReceiptKey("receipts/preview/pr-12.json")).toEqual({
      environment: "preview",
      scope: "pr-12",
    });
  });

  it("keeps a branch scope's slash inside the scope, since environments never hold one", () => {
    const key = receiptKey("production", "branch-feature/login");
    expect(key).toBe("receipts/production/branch-feature/login.json");
    expect(parseReceiptKey(key)).toEqual({ environment: "production", scope: "branch-feature/login" });
  });

  it("refuses names that are not an environment or a scope", () => {
    expect(() => receiptKey("_locks", "pr-1")).toThrow(expect.objectContaining({ code: "VALIDATION" }));
    expect(() => receiptKey("preview", "abc123")).toThrow(expect.objectContaining({ code: "VALIDATION" }));
    expect(() => receiptPrefix("Preview")).toThrow(expect.objectContaining({ code: "VALIDATION" }));
  });

  it("lists by environment or across all, and ignores keys that are not receipts", () => {
    expect(receiptPrefix("preview")).toBe("receipts/preview/");
    expect(receiptPrefix()).toBe("receipts/");
    expect(parseReceiptKey("receipts/preview/pr-1.txt")).toBeNull();
    expect(parseReceiptKey("receipts/preview.json")).toBeNull();
    expect(parseReceiptKey("receipts/preview/deadbeef.json")).toBeNull();
    expect(parseReceiptKey("other/preview/pr-1.json")).toBeNull();
  });
});
