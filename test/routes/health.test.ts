/** GET /healthz (docs/api.md, "Routes"): liveness, public, JSON. */
import { exports } from "cloudflare:workers";
import { describe, it } from "vitest";

const worker = (exports as unknown as { default: Fetcher }).default;

describe("GET /healthz", () => {
  it("answers 200 JSON saying the service is up, without credentials", async ({ expect }) => {
    const res = await worker.fetch(new Request("http://x/healthz"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ ok: true, service: "sponson-edge" });
  });
});
