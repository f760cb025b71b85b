/**
 * The emulated API Keys API answers the documented requests (API Keys API v2 reference,
 * resources.proto, AIP-134 and AIP-154): the Key as GET returns it, an update mask that replaces
 * the masked field whole, the etag's compare-and-set, the update's Operation, Google's error
 * envelope.
 */
import { env } from "cloudflare:workers";
import { importPKCS8, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { configureHost, emulatorStub } from "../../helpers/emulators";
import {
  APIKEYS_HOST,
  apiKeyRecord,
  seedApiKey,
  seedApiKeysProject,
  setOperations,
} from "../../helpers/emulators-apikeys";
import { freshGoogleProject, googleServiceAccount } from "../../helpers/emulators-firebase";

const send = providerFetch(env);
const KEY = "previews-browser-key";
const RESTRICTIONS = {
  browserKeyRestrictions: { allowedReferrers: ["https://app.example.com/*"] },
  apiTargets: [{ service: "maps-backend.googleapis.com" }],
};

async function keyAndToken(scope = "https://www.googleapis.com/auth/cloud-platform") {
  const account = await googleServiceAccount();
  const project = freshGoogleProject();
  await seedApiKeysProject(project, { members: { [account.email]: "admin" }, number: "123456789012" });
  await seedApiKey(project, KEY, apiKeyRecord(project, KEY, RESTRICTIONS, "123456789012"));
  const now = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({ scope })
    .setProtectedHeader({ alg: "RS256" })
    .setIssuer(account.email)
    .setAudience("https://oauth2.googleapis.com/token")
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(await importPKCS8(account.privateKeyPem, "RS256"));
  const res = await send("https://oauth2.googleapis.com/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwt }),
  });
  const { access_token } = (await res.json()) as { access_token: string };
  const auth = { authorization: `Bearer ${access_token}` };
  const url = `https://apikeys.googleapis.com/v2/projects/${project}/locations/global/keys/${KEY}`;
  const get = async () => (await (await send(url, { headers: auth })).json()) as Record<string, unknown>;
  const patch = (query: string, body: unknown) =>
    send(`${url}${query}`, {
      method: "PATCH",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { project, url, auth, get, patch };
}

describe("API Keys emulator fidelity", () => {
  it("GET → the Key: name with the project number, uid, times, restrictions and etag; never keyString", async () => {
    const k = await keyAndToken();
    const key = await k.get();
    expect(key).toMatchObject({
      name: `projects/123456789012/locations/global/keys/${KEY}`,
      displayName: "Browser key (previews)",
      restrictions: RESTRICTIONS,
      etag: expect.any(String),
      uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createTime: expect.any(String),
      updateTime: expect.any(String),
    });
    expect(key).not.toHaveProperty("keyString");
  });

  it("PATCH ?updateMask=restrictions replaces the whole restrictions: apiTargets not sent are cleared; the answer is a done Operation", async () => {
    const k = await keyAndToken();
    const { etag } = await k.get();
    const res = await k.patch("?updateMask=restrictions", {
      restrictions: { browserKeyRestrictions: { allowedReferrers: ["https://pr-1.example.com/*"] } },
      etag,
    });
    expect(res.status).toBe(200);
    const op = (await res.json()) as Record<string, unknown>;
    expect(op).toMatchObject({
      name: expect.stringMatching(/^operations\/[^/]+$/),
      done: true,
      response: {
        "@type": "type.googleapis.com/google.api.apikeys.v2.Key",
        restrictions: { browserKeyRestrictions: { allowedReferrers: ["https://pr-1.example.com/*"] } },
      },
    });
    const after = await k.get();
    expect(after.restrictions).toEqual({
      browserKeyRestrictions: { allowedReferrers: ["https://pr-1.example.com/*"] },
    });
    expect(after.etag).not.toBe(etag);
    expect(after.displayName).toBe("Browser key (previews)");
  });

  it("a stale etag → 409 ABORTED in Google's envelope, nothing changed; no etag → an unconditional update", async () => {
    const k = await keyAndToken();
    const { etag } = await k.get();
    const body = { restrictions: RESTRICTIONS, etag };
    expect((await k.patch("?updateMask=restrictions", body)).status).toBe(200);
    const stale = await k.patch("?updateMask=restrictions", { ...body, restrictions: {} });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({
      error: {
        code: 409,
        message: expect.stringContaining("does not match the current etag"),
        status: "ABORTED",
      },
    });
    expect((await k.get()).restrictions).toEqual(RESTRICTIONS);
    const blind = await k.patch("?updateMask=restrictions", { restrictions: {} });
    expect(blind.status).toBe(200);
    expect((await k.get()).restrictions).toEqual({});
  });

  it("six updates held, then let go at once, with the etag all read: one is accepted, the others refused 409 (a compare-and-set)", async () => {
    const k = await keyAndToken();
    const { etag } = await k.get();
    await configureHost(APIKEYS_HOST, { holdWrites: 6 });
    const sent = [1, 2, 3, 4, 5, 6].map((n) =>
      k.patch("?updateMask=restrictions", {
        restrictions: {
          ...RESTRICTIONS,
          browserKeyRestrictions: { allowedReferrers: [`https://pr-${n}.example.com/*`] },
        },
        etag,
      }),
    );
    while ((await emulatorStub(APIKEYS_HOST).stats()).heldWrites < 6) await scheduler.wait(1);
    await emulatorStub(APIKEYS_HOST).releaseWrites();
    const all = await Promise.all(sent);
    await configureHost(APIKEYS_HOST, {});
    expect(all.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it("the update mask: snake case and `*` are taken, other or deeper paths refused 400; two client restrictions refused 400", async () => {
    const k = await keyAndToken();
    const deeper = await k.patch("?updateMask=restrictions.browser_key_restrictions", {
      restrictions: RESTRICTIONS,
    });
    expect(deeper.status).toBe(400);
    expect(await deeper.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
    expect((await k.patch("?updateMask=uid", { uid: "x" })).status).toBe(400);
    const both = await k.patch("?update_mask=restrictions", {
      restrictions: { ...RESTRICTIONS, serverKeyRestrictions: { allowedIps: ["203.0.113.7"] } },
    });
    expect(both.status).toBe(400);
    expect((await k.patch("?updateMask=display_name", { displayName: "Renamed" })).status).toBe(200);
    const key = await k.get();
    expect(key.displayName).toBe("Renamed");
    expect(key.restrictions).toEqual(RESTRICTIONS);
  });

  it("an Operation kept pending: the PATCH answers it not done, each poll counts, the change lands when it is done", async () => {
    const k = await keyAndToken();
    await setOperations(k.project, KEY, { pendingPolls: 2 });
    const res = await k.patch("?updateMask=restrictions", { restrictions: {} });
    const op = (await res.json()) as { name: string; done?: boolean };
    expect(op.done).toBeUndefined();
    const poll = async () =>
      (await (await send(`https://apikeys.googleapis.com/v2/${op.name}`, { headers: k.auth })).json()) as {
        done?: boolean;
      };
    expect((await poll()).done).toBeUndefined();
    expect((await k.get()).restrictions).toEqual(RESTRICTIONS);
    expect(await poll()).toMatchObject({ done: true, response: { restrictions: {} } });
    expect((await k.get()).restrictions).toEqual({});
    const unknown = await send("https://apikeys.googleapis.com/v2/operations/akmf.none", { headers: k.auth });
    expect(unknown.status).toBe(404);
  });

  it("a knob with a count: only that many updates' operations are kept pending, the next is done at once", async () => {
    const k = await keyAndToken();
    await setOperations(k.project, KEY, { pendingPolls: "never", count: 1 });
    const first = (await (await k.patch("?updateMask=restrictions", { restrictions: {} })).json()) as {
      done?: boolean;
    };
    const second = (await (
      await k.patch("?updateMask=restrictions", { restrictions: RESTRICTIONS })
    ).json()) as {
      done?: boolean;
    };
    expect([first.done, second.done]).toEqual([undefined, true]);
    expect((await k.get()).restrictions).toEqual(RESTRICTIONS);
  });

  it("an Operation done with an error: `error` as google.rpc.Status, the key unchanged", async () => {
    const k = await keyAndToken();
    await setOperations(k.project, KEY, { pendingPolls: 0, error: { code: 3, message: "Bad referrer." } });
    const res = await k.patch("?updateMask=restrictions", { restrictions: {} });
    expect(await res.json()).toMatchObject({ done: true, error: { code: 3, message: "Bad referrer." } });
    expect((await k.get()).restrictions).toEqual(RESTRICTIONS);
  });

  it("401 without a token, 403 for a read-only token's PATCH and for a non-member, 404 for an unknown key", async () => {
    const k = await keyAndToken();
    const anonymous = await send(k.url);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
    const missing = await send(k.url.replace(/keys\/.*$/, "keys/no-such-key"), { headers: k.auth });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { status: "NOT_FOUND" } });
    const stranger = await send(k.url.replace(k.project, "not-ours"), { headers: k.auth });
    expect(stranger.status).toBe(403);
    expect(await stranger.json()).toMatchObject({ error: { status: "PERMISSION_DENIED" } });

    const reader = await keyAndToken("https://www.googleapis.com/auth/cloud-platform.read-only");
    expect((await send(reader.url, { headers: reader.auth })).status).toBe(200);
    const write = await reader.patch("?updateMask=restrictions", { restrictions: {} });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({
      error: { message: "Request had insufficient authentication scopes.", status: "PERMISSION_DENIED" },
    });
  });
});
