/**
 * The production entry ignores `EMULATORS` (docs/security.md, "Write policy"): the open local policy
 * is tied to the dev entry's emulator transport, so a Worker deployed with `EMULATORS=on` and no
 * SPONSON_POLICY still refuses every write — it would be writing to the real providers.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { createApp } from "../../workers/app";
import { networkTransport, type ProviderTransport } from "../../workers/wiring/wire";
import { call, type TestApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";

/** Production's kind of transport (not marked emulated), answered by the emulators so the control can write. */
function productionLikeApp(hosts: string[]): TestApp {
  const transport: ProviderTransport = (bindings) => {
    const inner = emulatorTransport(bindings);
    return (input, init) => {
      hosts.push(new URL(new Request(input, init).url).host);
      return inner(input, init);
    };
  };
  return createApp({ transport });
}

describe("EMULATORS=on outside the dev entry", () => {
  it("the production entry's transport is not the emulated one", () => {
    expect(networkTransport.emulated).toBeUndefined();
    expect(emulatorTransport.emulated).toBe(true);
  });

  it("an apply with no SPONSON_POLICY is refused 403 policy.environment: no write, no provider request", async () => {
    expect(env.EMULATORS).toBe("on");
    const domain = freshAuth0Domain("prodpolicy");
    await seedTenant(domain);
    const hosts: string[] = [];
    const scope = freshPr();
    const res = await call(productionLikeApp(hosts), "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: previewPlan(domain),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { rule?: string }).rule).toBe("policy.environment");
    expect(hosts).toEqual([]);
    // The refused run is on record; nothing entered the ledger.
    expect((await receipt("preview", scope))?.ledger ?? []).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("control: the dev entry's app, same env, writes", async () => {
    const domain = freshAuth0Domain("devpolicy");
    await seedTenant(domain);
    const scope = freshPr();
    const res = await call(
      createApp({ transport: emulatorTransport }),
      "POST",
      `/v1/scopes/preview/${scope}/apply`,
      {
        plan: previewPlan(domain),
      },
    );
    expect(res.status).toBe(200);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toContain(
      `https://${scope}.preview.example.com/callback`,
    );
  });
});
