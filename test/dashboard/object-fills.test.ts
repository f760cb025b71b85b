/**
 * Issue 32, "Capacity is visible": the object page shows each capped list on the object with its
 * entries, its cap and its share, marked near its cap above the sweep's share and full at its cap;
 * a capped list the lock has no fill for yet says so. Counts only, so a viewer bound to another
 * repository sees them as it sees the page.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import { fillRows } from "../../workers/dashboard/object-fills";
import { objectHash } from "../../workers/dashboard/object-hash";
import { apply, call, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appIdentity, freshPr } from "../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../helpers/plans";
import { bearer, mintServiceToken } from "../helpers/tokens";

const app = testApp();
const kept = (n: number) => Array.from({ length: n }, (_, i) => `https://kept-${i}.example.com/cb`);

/** An Auth0 application holding `before` callbacks, on a connection with `cap` (null: none) for them. */
async function tenant(before: number, cap: number | null) {
  const domain = freshAuth0Domain("fillpage");
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { callbacks: kept(before) } } });
  const connection = `auth0-fillpage-${domain}`;
  const register = (c: number | null) =>
    registerConnection(connection, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      ...(c === null ? {} : { capacity: { "auth0.callbackUrl": c } }),
    });
  register(cap);
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "cb",
        op: "auth0.callbackUrl",
        connection,
        params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com/cb" },
      },
    ],
  };
  const result = await apply(app, "preview", freshPr(), plan);
  expect(result.run.status).toBe("succeeded");
  return { path: `/dashboard/objects/${await objectHash(appIdentity(domain))}`, setCap: register };
}

async function page(path: string, headers?: Record<string, string>, status = 200) {
  const res = await call(app, "GET", path, undefined, headers ?? (await bearer("viewer")));
  expect(res.status).toBe(status);
  return res.text();
}

/** The capacity row of one list, from its opening tag to its end. */
function row(html: string, op: string): string {
  const start = html.indexOf(`data-fill-op="${op}"`);
  expect(start).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf("</tr>", start));
}

describe("the object page's fill levels", () => {
  it("a list at 255 of 256 shows its entries, cap and share, marked near its cap", async () => {
    const { path } = await tenant(254, 256);
    const html = await page(path);
    const list = row(html, "auth0.callbackUrl");
    expect(list).toContain('data-fill-level="near"');
    expect(list).toContain("255 of 256");
    // Floored: a list with room left never reads 100 %.
    expect(list).toContain("99 %");
    expect(list).toContain("near its cap");
  });

  it("a list at its cap is marked full; one at 80 % or below is not marked (the sweep's share)", async () => {
    const full = await tenant(2, 3);
    const fullRow = row(await page(full.path), "auth0.callbackUrl");
    expect(fullRow).toContain('data-fill-level="full"');
    expect(fullRow).toContain("3 of 3");
    expect(fullRow).toContain("100 %");
    const roomy = await tenant(7, 10);
    const roomyRow = row(await page(roomy.path), "auth0.callbackUrl");
    expect(roomyRow).toContain('data-fill-level="ok"');
    expect(roomyRow).toContain("8 of 10");
    expect(roomyRow).not.toContain("near its cap");
  });

  it("a capped list without a recorded fill says it is not measured yet; an object with no capped list says so", async () => {
    // Written before the operator set a cap: the lock has no fill for the list until the next write.
    const { path, setCap } = await tenant(1, null);
    expect(await page(path)).toContain("No list on this object has a cap");
    setCap(50);
    const list = row(await page(path), "auth0.callbackUrl");
    expect(list).toContain('data-fill-level="unmeasured"');
    expect(list).toContain("not measured yet: recorded after the next write");
  });

  it("a token bound to a repository that does not use the object is told nothing of it, counts included", async () => {
    const { path } = await tenant(254, 256);
    const other = {
      authorization: `Bearer ${await mintServiceToken({ role: "ci", scopes: ["preview/*"], repository: "someone/else" })}`,
    };
    const html = await page(path, other, 404);
    expect(html).not.toContain("255 of 256");
    expect(html).not.toContain(".preview.example.com/cb");
  });
});
describe("fill rows (pure)", () => {
  it("orders lists by op, measured ones by their fill, capped lists without one as not measured", () => {
    const at = 1;
    const rows = fillRows(
      [
        { op: "b.list", cap: 10, entries: 8, at },
        { op: "a.list", cap: 10, entries: 9, at },
        { op: "c.list", cap: 4, entries: 4, at },
      ],
      ["d.list", "a.list"],
    );
    expect(rows.map((r) => [r.op, r.level])).toEqual([
      ["a.list", "near"],
      ["b.list", "ok"],
      ["c.list", "full"],
      ["d.list", "unmeasured"],
    ]);
  });

  it("an op with several lists on the object (one per CORS rule) has a row per list, each named", () => {
    const at = Date.now();
    const rows = fillRows(
      [
        { op: "r2.corsOrigin", list: "rule B", cap: 10, entries: 9, at },
        { op: "r2.corsOrigin", list: "rule A", cap: 10, entries: 2, at },
      ],
      ["r2.corsOrigin"],
    );
    expect(rows.map((r) => [r.op, "list" in r ? r.list : null, r.level])).toEqual([
      ["r2.corsOrigin", "rule A", "ok"],
      ["r2.corsOrigin", "rule B", "near"],
    ]);
  });
});
