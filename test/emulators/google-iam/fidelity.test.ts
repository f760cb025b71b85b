/**
 * The emulated IAM OAuth clients API answers like the service (IAM API v1,
 * projects.locations.oauthClients): GET the client, PATCH with a required updateMask that replaces
 * the lists it names, Google's error envelope.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { withServiceAccountKeyToken } from "../../../workers/adapters/firebase/google-auth";
import { CLIENT, iamProjectWithClient } from "../../adapters/google/iam-oauth-client";

const send = providerFetch(env);

async function signedIn() {
  const p = await iamProjectWithClient(["https://a.example.com/cb"]);
  let token = "";
  const config = p.ctx.config as { serviceAccountKey: Parameters<typeof withServiceAccountKeyToken>[2] };
  await withServiceAccountKeyToken(p.ctx, "google", config.serviceAccountKey, async (t) => {
    token = t;
  });
  const url = `https://iam.googleapis.com/v1/projects/${p.project}/locations/global/oauthClients/${CLIENT}`;
  return { p, url, auth: { authorization: `Bearer ${token}` } };
}

describe("IAM OAuth clients emulator fidelity", () => {
  it("GET → the client resource with its name, clientType and allowedRedirectUris", async () => {
    const s = await signedIn();
    const res = await send(s.url, { headers: s.auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: `projects/${s.p.project}/locations/global/oauthClients/${CLIENT}`,
      clientType: "CONFIDENTIAL_CLIENT",
      allowedRedirectUris: ["https://a.example.com/cb"],
    });
  });

  it("PATCH without updateMask is 400; with it, the named list is replaced and the client returned", async () => {
    const s = await signedIn();
    const body = JSON.stringify({
      allowedRedirectUris: ["https://b.example.com/cb"],
      displayName: "ignored",
    });
    const bare = await send(s.url, {
      method: "PATCH",
      headers: { ...s.auth, "content-type": "application/json" },
      body,
    });
    expect(bare.status).toBe(400);
    expect(await bare.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    const res = await send(`${s.url}?updateMask=allowedRedirectUris`, {
      method: "PATCH",
      headers: { ...s.auth, "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      allowedRedirectUris: ["https://b.example.com/cb"],
      displayName: "Previews",
    });
  });

  it("an immutable field in the mask is refused", async () => {
    const s = await signedIn();
    const res = await send(`${s.url}?updateMask=clientType`, {
      method: "PATCH",
      headers: { ...s.auth, "content-type": "application/json" },
      body: JSON.stringify({ clientType: "PUBLIC_CLIENT" }),
    });
    expect(res.status).toBe(400);
  });

  it("no credentials: 401 UNAUTHENTICATED in Google's envelope", async () => {
    const s = await signedIn();
    const res = await send(s.url);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
  });
});
