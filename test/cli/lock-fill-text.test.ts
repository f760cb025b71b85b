/** `sponson locks <key>` shows each capped list's fill level with its cap (issue 32, "Capacity is visible"). */
import { describe, expect, it } from "vitest";
import { lockText } from "../../cli/render";
import type { LockState } from "../../shared/schemas/lock";

const lock: LockState = {
  key: "_locks/0123456789abcdef0123456789abcdef",
  kind: "parent",
  identity: "auth0:tenant.example.com:client:app",
  held: false,
  holder: null,
  token: null,
  since: null,
  expiresAt: null,
  waiters: [],
  lastToken: 4,
  history: [],
};

describe("a lock's fill levels in `sponson locks <key>`", () => {
  it("lists each capped list with its entries, cap and share, marking one above 80 %", () => {
    const at = Date.UTC(2026, 11, 2, 7, 0, 0);
    const text = lockText(
      {
        ...lock,
        fills: [
          {
            op: "auth0.webOrigin",
            cap: 100,
            entries: 93,
            at,
            repositories: [
              { id: null, entries: 80 },
              { id: 7, name: "acme/web", entries: 10 },
            ],
          },
          { op: "auth0.logoutUrl", cap: 100, entries: 12, at },
        ],
      },
      at,
    ).join("\n");
    expect(text).toMatch(/LIST\s+ENTRIES\s+CAP\s+FILL\s+SHARES\s+SEEN/);
    expect(text).toMatch(
      /auth0\.webOrigin\s+93\s+100\s+93 % \(near its cap\)\s+other 80, acme\/web 10\s+2026-12-02T07:00:00/,
    );
    expect(text).toMatch(/auth0\.logoutUrl\s+12\s+100\s+12 %\s+-\s+2026-12-02T07:00:00/);
  });

  it("a list one short of its cap reads 99 %, not 100 %: only a full list reads 100 %", () => {
    const at = Date.UTC(2026, 11, 2, 7, 0, 0);
    const text = lockText(
      {
        ...lock,
        fills: [
          { op: "entra.redirectUri", cap: 256, entries: 255, at },
          { op: "auth0.webOrigin", cap: 100, entries: 100, at },
        ],
      },
      at,
    ).join("\n");
    expect(text).toMatch(/entra\.redirectUri\s+255\s+256\s+99 % \(near its cap\)/);
    expect(text).toMatch(/auth0\.webOrigin\s+100\s+100\s+100 % \(full\)/);
  });

  it("an op with a list per CORS rule shows each rule's list by name", () => {
    const at = Date.UTC(2026, 11, 2, 7, 0, 0);
    const text = lockText(
      {
        ...lock,
        fills: [
          { op: "r2.corsOrigin", list: "rule A", cap: 10, entries: 2, at },
          { op: "r2.corsOrigin", list: "rule B", cap: 10, entries: 9, at },
        ],
      },
      at,
    ).join("\n");
    expect(text).toMatch(/r2\.corsOrigin \(rule A\)\s+2\s+10\s+20 %/);
    expect(text).toMatch(/r2\.corsOrigin \(rule B\)\s+9\s+10\s+90 % \(near its cap\)/);
  });

  it("a lock with no fill level shows no capacity table", () => {
    expect(lockText(lock, Date.now()).join("\n")).not.toContain("CAP");
  });
});
