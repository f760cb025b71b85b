import { describe, expect, it } from "vitest";
import { parseReceiptKey, receiptKey, receiptPrefix } from "../../workers/receipts/layout";

describe("receipt key layout", () => {
  it("is receipts/<repository id>/<environment>/<scope>.json and parses back", () => {
    expect(receiptKey(186853002, "preview", "pr-12")).toBe("receipts/186853002/preview/pr-12.json");
    expect(parseReceiptKey("receipts/186853002/preview/pr-12.json")).toEqual({
      repositoryId: 186853002,
      environment: "preview",
      scope: "pr-12",
    });
  });

  it("two repositories' pr-5 are two keys", () => {
    expect(receiptKey(1, "preview", "pr-5")).not.toBe(receiptKey(2, "preview", "pr-5"));
  });

  it("keeps a branch scope's slash inside the scope, since neither ids nor environments hold one", () => {
    const key = receiptKey(7, "production", "branch-feature/login");
    expect(key).toBe("receipts/7/production/branch-feature/login.json");
    expect(parseReceiptKey(key)).toEqual({
      repositoryId: 7,
      environment: "production",
      scope: "branch-feature/login",
    });
  });

  it("refuses names that are not a repository id, an environment or a scope", () => {
    const validation = expect.objectContaining({ code: "VALIDATION" });
    expect(() => receiptKey(7, "_locks", "pr-1")).toThrow(validation);
    expect(() => receiptKey(7, "preview", "abc123")).toThrow(validation);
    expect(() => receiptKey(0, "preview", "pr-1")).toThrow(validation);
    expect(() => receiptKey(-3, "preview", "pr-1")).toThrow(validation);
    expect(() => receiptPrefix(7, "Preview")).toThrow(validation);
  });

  it("lists by repository, by repository and environment, or across all, and ignores keys that are not receipts", () => {
    expect(receiptPrefix(7, "preview")).toBe("receipts/7/preview/");
    expect(receiptPrefix(7)).toBe("receipts/7/");
    expect(receiptPrefix()).toBe("receipts/");
    expect(parseReceiptKey("receipts/7/preview/pr-1.txt")).toBeNull();
    expect(parseReceiptKey("receipts/7/preview.json")).toBeNull();
    expect(parseReceiptKey("receipts/7/preview/deadbeef.json")).toBeNull();
    expect(parseReceiptKey("receipts/acme/preview/pr-1.json")).toBeNull();
    expect(parseReceiptKey("other/7/preview/pr-1.json")).toBeNull();
  });

  it("a key of the layout before repositories is no receipt key: runs never read it (the upgrade moves it)", () => {
    expect(parseReceiptKey("receipts/preview/pr-12.json")).toBeNull();
    expect(parseReceiptKey("receipts/preview/branch-a/b.json")).toBeNull();
  });
});
