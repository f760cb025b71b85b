/**
 * The floor of a read-modify-write (issue 24, docs/design.md "Writing one object's items"): on a
 * warm connection, a scope's three new lines on one application cost one read under the parent
 * lease and one write — no read before the lease, since nothing in the ledger could be "unchanged".
 * Items the ledger holds are still read once, before any lease, to find drift and stay lock-free.
 */
import { describe, expect, it } from "vitest";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, previewPlan, seedTenant } from "../helpers/plans";

const requests: string[] = [];
const app = testApp({
  engine: {
    wrapFetch: (inner) => (input, init) => {
      const request = new Request(input, init);
      requests.push(`${request.method} ${new URL(request.url).pathname}`);
      return inner(input, init);
    },
  },
});
const CLIENT = `/api/v2/clients/${APP_CLIENT}`;

describe("provider calls per apply", () => {
  it("a second scope's three lines on a warm connection: one read under the lease, one write", async () => {
    const domain = freshAuth0Domain("floor");
    await seedTenant(domain);
    await apply(app, "preview", freshPr(), previewPlan(domain)); // warms the token and the lock
    requests.length = 0;
    const result = await apply(app, "preview", freshPr(), previewPlan(domain));
    expect(result.lines.map((l) => l.result)).toEqual(["created", "created", "created"]);
    expect(requests).toEqual([`GET ${CLIENT}`, `PATCH ${CLIENT}`]);
  });

  it("re-applying owned lines reads once and takes no lease; a new line beside them still writes", async () => {
    const domain = freshAuth0Domain("floor");
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    requests.length = 0;
    const again = await apply(app, "preview", scope, previewPlan(domain));
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(requests).toEqual([`GET ${CLIENT}`]);

    const grown = auth0Plan(domain, [
      { id: "callback", op: "auth0.callbackUrl", url: `https://${scope}.preview.example.com/callback` },
      { id: "extra", op: "auth0.callbackUrl", url: `https://${scope}.preview.example.com/extra` },
    ]);
    requests.length = 0;
    const edited = await apply(app, "preview", scope, grown);
    expect(Object.fromEntries(edited.lines.map((l) => [l.id, l.result]))).toEqual({
      callback: "unchanged",
      extra: "created",
      logout: "removed",
      origin: "removed",
    });
    // The owned line's drift read, then the new line's group under its lease, then the removals'.
    expect(requests[0]).toBe(`GET ${CLIENT}`);
    expect(requests.filter((r) => r.startsWith("PATCH"))).toHaveLength(2);
  });
});
