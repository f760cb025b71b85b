/**
 * `@googleapis/iam` (and its google-auth-library JWT client) against the IAM OAuth clients emulator:
 * gaxios takes a fetch implementation, so only the origin of each request changes. The adapter
 * and the SDK each read what the other wrote.
 */
import { auth, iam } from "@googleapis/iam";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { googleKeys } from "../../dev/emulators/google";
import { iamKeys, iamOAuthClient } from "../../dev/emulators/google-iam";
import { googleAdapter } from "../../workers/adapters/google";
import { adapterContext, opOf } from "./adapter-context";
import { emulatorFetch, seed, unique } from "./emulators";

const IAM = "iam.googleapis.com";
const project = unique("proj");
const CLIENT = "sdk-previews";
const name = `projects/${project}/locations/global/oauthClients/${CLIENT}`;
let email: string;
let key: string;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  email = `${unique("sdk")}@sponson-tests.iam.gserviceaccount.com`;
  key = await exportPKCS8(pair.privateKey);
  await seed("oauth2.googleapis.com", {
    [googleKeys.serviceAccount(email)]: { publicJwk: await exportJWK(pair.publicKey) },
  });
  await seed(IAM, {
    [iamKeys.project(project)]: { members: { [email]: "editor" } },
    [iamKeys.client(project, "global", CLIENT)]: iamOAuthClient(project, CLIENT, [
      "https://app.example.com/cb",
    ]),
  });
});

const api = () =>
  iam({
    version: "v1",
    auth: new auth.JWT({
      email,
      key,
      scopes: ["https://www.googleapis.com/auth/cloud-platform"],
      transporterOptions: { fetchImplementation: emulatorFetch },
    }),
    fetchImplementation: emulatorFetch,
    retry: false,
  });

const op = opOf(googleAdapter, "google.oauthClientRedirectUri");
const ctx = () =>
  adapterContext(googleAdapter, {
    type: "google",
    serviceAccountKey: JSON.stringify({ type: "service_account", client_email: email, private_key: key }),
  });
const params = (url: string) => ({ project, location: "global", client: CLIENT, url });

describe("@googleapis/iam projects.locations.oauthClients", () => {
  it("get reads the redirect URI the adapter added; patch by updateMask is read back by the adapter", async () => {
    const c = ctx();
    const added = params("https://pr-1.preview.example.com/cb");
    await op.create(c, added, await op.inspect(c, added));
    const { data } = await api().projects.locations.oauthClients.get({ name });
    expect(data.allowedRedirectUris).toEqual([
      "https://app.example.com/cb",
      "https://pr-1.preview.example.com/cb",
    ]);
    expect(data.clientType).toBe("CONFIDENTIAL_CLIENT");

    const patched = await api().projects.locations.oauthClients.patch({
      name,
      updateMask: "allowedRedirectUris",
      requestBody: {
        allowedRedirectUris: [...(data.allowedRedirectUris ?? []), "https://pr-2.preview.example.com/cb"],
      },
    });
    expect(patched.data.allowedScopes).toEqual(data.allowedScopes);
    expect((await op.inspect(ctx(), params("https://pr-2.preview.example.com/cb"))).present).toBe(true);
  });

  it("a client of a project the account has no role on is 403 PERMISSION_DENIED", async () => {
    const denied = await api()
      .projects.locations.oauthClients.get({
        name: `projects/not-ours/locations/global/oauthClients/${CLIENT}`,
      })
      .catch((e: unknown) => e);
    expect(denied).toMatchObject({
      status: 403,
      response: { data: { error: { status: "PERMISSION_DENIED" } } },
    });
  });
});
