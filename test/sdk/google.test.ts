/**
 * Google's Node clients against the emulators: `@googleapis/identitytoolkit` (and its
 * google-auth-library JWT client) for the Identity Platform config, `@google-cloud/storage` for
 * bucket CORS. gaxios takes a fetch implementation, so only the origin of each request changes.
 */
import { Storage } from "@google-cloud/storage";
import { auth, identitytoolkit } from "@googleapis/identitytoolkit";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { identityKeys } from "../../dev/emulators/firebase";
import { gcsKeys } from "../../dev/emulators/gcs";
import { googleKeys } from "../../dev/emulators/google";
import { configure, dump, emulatorFetch, emulatorsUrl, seed, sent, unique } from "./emulators";

const IDENTITY = "identitytoolkit.googleapis.com";
const STORAGE = "storage.googleapis.com";
const TOKEN_HOST = "oauth2.googleapis.com";
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const project = unique("proj");
const bucket = unique("bucket");
let email: string;
let key: string;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  email = `${unique("sdk")}@sponson-tests.iam.gserviceaccount.com`;
  key = await exportPKCS8(pair.privateKey);
  const account = { publicJwk: await exportJWK(pair.publicKey) };
  // The token host knows the key; so does the API host that takes self-signed JWTs directly.
  await seed(TOKEN_HOST, { [googleKeys.serviceAccount(email)]: account });
  await seed(IDENTITY, {
    [googleKeys.serviceAccount(email)]: account,
    [identityKeys.project(project)]: {
      members: { [email]: "editor" },
      config: {
        authorizedDomains: ["localhost", `${project}.firebaseapp.com`],
        signIn: { email: { enabled: true, passwordRequired: true } },
      },
    },
  });
  await seed(STORAGE, {
    [gcsKeys.bucket(bucket)]: {
      members: { [email]: "admin" },
      metageneration: 3,
      cors: [{ origin: ["https://a.example.com"], method: ["GET"], maxAgeSeconds: 600 }],
    },
  });
});

function jwtClient(options: { useJWTAccessWithScope?: boolean } = {}) {
  const client = new auth.JWT({
    email,
    key,
    scopes: [CLOUD_PLATFORM],
    transporterOptions: { fetchImplementation: emulatorFetch },
  });
  // google-auth-library then signs a JWT with a `scope` claim and sends it as the bearer.
  client.useJWTAccessWithScope = options.useJWTAccessWithScope ?? false;
  return client;
}

const toolkit = (client: InstanceType<typeof auth.JWT>) =>
  identitytoolkit({ version: "v2", auth: client, fetchImplementation: emulatorFetch, retry: false });

describe("@googleapis/identitytoolkit", () => {
  it("reads the config at googleapis' default path /v2/projects/{p}/config with a token bought at oauth2", async () => {
    const api = toolkit(jwtClient());
    const { data } = await api.projects.getConfig({ name: `projects/${project}/config` });
    expect(data.authorizedDomains).toEqual(["localhost", `${project}.firebaseapp.com`]);
    expect(sent.some((r) => r.url === `https://${TOKEN_HOST}/token`)).toBe(true);
    expect(sent.some((r) => new URL(r.url).pathname === `/v2/projects/${project}/config`)).toBe(true);
  });

  it("updates authorizedDomains by updateMask; a mask naming another field keeps that field's new value", async () => {
    const api = toolkit(jwtClient());
    const name = `projects/${project}/config`;
    const { data } = await api.projects.updateConfig({
      name,
      updateMask: "authorizedDomains",
      requestBody: { authorizedDomains: ["localhost", `${project}.firebaseapp.com`, "pr-1.example.com"] },
    });
    expect(data.authorizedDomains).toContain("pr-1.example.com");
    expect(data.signIn?.email?.enabled).toBe(true);
    const other = await api.projects.updateConfig({
      name,
      updateMask: "signIn.email.passwordRequired",
      requestBody: { signIn: { email: { passwordRequired: false } } },
    });
    expect(other.data.signIn?.email).toEqual({ enabled: true, passwordRequired: false });
    expect(other.data.authorizedDomains).toContain("pr-1.example.com");
  });

  it("a self-signed service-account JWT is accepted as the bearer, no token exchange", async () => {
    const before = sent.filter((r) => r.url === `https://${TOKEN_HOST}/token`).length;
    const api = toolkit(jwtClient({ useJWTAccessWithScope: true }));
    const { data } = await api.projects.getConfig({ name: `projects/${project}/config` });
    expect(data.name).toBe(`projects/${project}/config`);
    expect(sent.filter((r) => r.url === `https://${TOKEN_HOST}/token`).length).toBe(before);
  });

  it("errors in Google's envelope: 403 for another project, 429 RESOURCE_EXHAUSTED with Retry-After", async () => {
    const api = toolkit(jwtClient());
    const denied = await api.projects
      .getConfig({ name: "projects/not-ours/config" })
      .catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 403 });
    await configure(IDENTITY, { failures: [{ status: 429, count: 1, on: "read" }] });
    const limited = await api.projects
      .getConfig({ name: `projects/${project}/config` })
      .catch((e: unknown) => e);
    expect(limited).toMatchObject({
      status: 429,
      response: { data: { error: { status: "RESOURCE_EXHAUSTED" } } },
    });
  });
});

describe("@google-cloud/storage", () => {
  const storage = () =>
    new Storage({
      apiEndpoint: `${emulatorsUrl()}/v1/emulators/${STORAGE}`,
      // The same JWT client class; the two packages resolve different copies of gaxios' types.
      authClient: jwtClient() as unknown as NonNullable<
        ConstructorParameters<typeof Storage>[0]
      >["authClient"],
      // A custom endpoint is taken for a local emulator that needs no auth; this one checks it.
      useAuthWithCustomEndpoint: true,
      retryOptions: { autoRetry: false },
    });

  it("reads CORS and metageneration, then sets CORS under ifMetagenerationMatch", async () => {
    const b = storage().bucket(bucket);
    const [metadata] = await b.getMetadata();
    expect(metadata.metageneration).toBe("3");
    expect(metadata.cors).toEqual([
      { origin: ["https://a.example.com"], method: ["GET"], maxAgeSeconds: 600 },
    ]);
    const cors = [
      { origin: ["https://a.example.com", "https://b.example.com"], method: ["GET"], maxAgeSeconds: 600 },
    ];
    const [updated] = await b.setMetadata({ cors }, { ifMetagenerationMatch: 3 });
    expect(updated.metageneration).toBe("4");
    const stored = (await dump(STORAGE, gcsKeys.bucket(bucket)))[gcsKeys.bucket(bucket)];
    expect(stored).toMatchObject({ metageneration: 4, cors });
  });

  it("a stale metageneration is 412 conditionNotMet; a missing bucket is 404 notFound", async () => {
    const stale = await storage()
      .bucket(bucket)
      .setMetadata({ cors: [] }, { ifMetagenerationMatch: 1 })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({
      code: 412,
      errors: [expect.objectContaining({ reason: "conditionNotMet" })],
    });
    const missing = await storage()
      .bucket(unique("nobucket"))
      .getMetadata()
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 404 });
  });
});
