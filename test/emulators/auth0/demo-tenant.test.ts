import { describe, expect, it } from "vitest";
import { auth0Client } from "../../helpers/emulators";
import { get, token } from "./auth0-api";

describe("the demo tenant behind npm start", () => {
  it("a sponson-demo. host is provisioned on first use with the documented credentials and application", async () => {
    const domain = `sponson-demo.${crypto.randomUUID().slice(0, 8)}.auth0.com`;
    const bearer = await token(domain, "sponson-local", "local-demo-secret");
    expect(bearer).toMatch(/\S{16,}/);
    const res = await get(domain, "preview-app", bearer, "?fields=callbacks&include_fields=true");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ callbacks: [] });
    expect(await auth0Client(domain, "preview-app")).toMatchObject({
      allowed_logout_urls: [],
      web_origins: [],
      allowed_origins: [],
    });
  });

  it("other hosts start empty: no demo credentials", async () => {
    const domain = `acme-${crypto.randomUUID().slice(0, 8)}.us.auth0.com`;
    expect(await token(domain, "sponson-local", "local-demo-secret")).toBeUndefined();
    expect(await auth0Client(domain, "preview-app")).toBeUndefined();
  });
});
