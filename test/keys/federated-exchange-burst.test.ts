/**
 * docs/design.md, "Provider tokens" and "Federated connections": a burst of runs on one
 * privateKeyJwt connection, each on a fresh isolate (no isolate token cache), buys one access
 * token: the fleet's token object for the connection holds the exchange while the others wait, so
 * the emulated token endpoint sees exactly one client assertion (each exchange spends a one-use jti).
 */

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auth0Keys, clientRecord, type M2mClient } from "../../dev/emulators/auth0/state";
import { publishedKeys } from "../../workers/keys/federation";
import { call, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { auth0Client, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";

const BURST = 10;

describe("one exchange per connection under a burst", () => {
  it(`${BURST} concurrent applies on fresh isolates: one client assertion reaches the token endpoint`, async () => {
    const domain = freshAuth0Domain("burst");
    const clientId = "pkjwt-burst-m2m";
    const apps = Array.from({ length: BURST }, (_, i) => `burst-app-${i}`);
    const keys = (
      await publishedKeys(String((env as unknown as Record<string, unknown>).FEDERATION_SIGNING_KEY))
    ).keys;
    await emulatorStub(domain).seed({
      [auth0Keys.m2m(clientId)]: {
        privateKeyJwt: { keys: keys as Record<string, unknown>[] },
        scopes: ["read:clients", "update:clients"],
      } satisfies M2mClient,
      ...Object.fromEntries(apps.map((id) => [auth0Keys.client(id), clientRecord(id)])),
    });
    const connection = registerConnection("auth0-pkjwt-burst", {
      type: "auth0",
      config: { domain },
      privateKeyJwt: { clientId },
    });
    let exchanges = 0;
    // Every run its own app object and no isolate cache: as if each landed on a new isolate.
    const run = async (app: string) => {
      const worker = testApp({
        engine: {
          isolateTokenCache: false,
          wrapFetch: (inner) => (input, init) => {
            if (new URL(new Request(input, init).url).pathname === "/oauth/token") exchanges += 1;
            return inner(input, init);
          },
        },
      });
      const scope = freshPr();
      const plan = {
        version: 2,
        lines: [
          {
            id: "cb",
            op: "auth0.callbackUrl",
            connection,
            params: { client: app, url: `https://${scope}.preview.example.com/callback` },
          },
        ],
      };
      const res = await call(worker, "POST", `/v1/scopes/preview/${scope}/apply`, { plan });
      return { status: res.status, body: await res.text(), scope };
    };
    const results = await Promise.all(apps.map(run));
    for (const r of results) expect(r.status, r.body).toBe(200);
    for (const [i, app] of apps.entries())
      expect((await auth0Client(domain, app))?.callbacks).toEqual([
        `https://${results[i]?.scope}.preview.example.com/callback`,
      ]);
    expect(exchanges).toBe(1);
    // The emulator's own count: every accepted assertion spent one jti.
    expect(Object.keys(await emulatorStub(domain).dump("assertion-jti:"))).toHaveLength(1);
  });
});
