/**
 * Fair use (docs/security.md, "Fair use"): a preview reads each provider object once for all its
 * lines, like apply, instead of once per line.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import { call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";

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

describe("preview reads", () => {
  it("twelve lines on one Auth0 application are one read of it", async () => {
    const domain = freshAuth0Domain("pvreads");
    await seedTenant(domain, { callbacks: ["https://line-0.preview.example.com/cb"] });
    const lines = Array.from({ length: 12 }, (_, i) => ({
      id: `l${i}`,
      op: i % 2 === 0 ? "auth0.callbackUrl" : "auth0.webOrigin",
      url: i % 2 === 0 ? `https://line-${i}.preview.example.com/cb` : `https://line-${i}.preview.example.com`,
    }));
    requests.length = 0;
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/preview`, {
      plan: auth0Plan(domain, lines),
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.map((l) => l.result)).toEqual(["unchanged", ...Array(11).fill("would-create")]);
    const reads = requests.filter((r) => r === `GET /api/v2/clients/${APP_CLIENT}`);
    expect(reads).toHaveLength(1);
  });
});
