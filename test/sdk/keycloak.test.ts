/**
 * `@keycloak/keycloak-admin-client` against the Keycloak emulator: client credentials (HTTP Basic),
 * find by clientId, read by internal id, a PUT of the whole representation (204), and the error
 * shapes the SDK reads its message from. The SDK calls the global `fetch`, routed to the emulators.
 */
import KeycloakAdminClient from "@keycloak/keycloak-admin-client";
import { beforeAll, describe, expect, it } from "vitest";
import { type KeycloakClientRecord, keycloakClient, keycloakKeys } from "../../dev/emulators/keycloak";
import { dump, routeGlobalFetchToEmulators, seed, unique } from "./emulators";

const REALM = "previews";
const SERVICE = { clientId: "sdk-service", clientSecret: "test-only-sdk-keycloak-secret" };
const UUID = crypto.randomUUID();
const host = `${unique("sdk")}.keycloak.example.com`;

beforeAll(async () => {
  routeGlobalFetchToEmulators();
  await seed(host, {
    [keycloakKeys.realm(REALM)]: true,
    [keycloakKeys.service(REALM, SERVICE.clientId)]: {
      secret: SERVICE.clientSecret,
      roles: ["manage-clients"],
    },
    [keycloakKeys.client(REALM, UUID)]: keycloakClient(UUID, "preview-app", {
      redirectUris: ["https://app.example.com/*"],
      webOrigins: ["https://app.example.com"],
    }),
    [keycloakKeys.client(REALM, "other")]: keycloakClient("other", "taken"),
  });
});

async function signedIn() {
  const kc = new KeycloakAdminClient({ baseUrl: `https://${host}`, realmName: REALM });
  await kc.auth({ grantType: "client_credentials", ...SERVICE });
  return kc;
}

describe("keycloak admin client SDK", () => {
  it("finds the client by clientId, reads it by id and PUTs it back whole: authorization settings survive", async () => {
    const kc = await signedIn();
    const [found] = await kc.clients.find({ clientId: "preview-app" });
    expect(found?.id).toBe(UUID);
    const rep = await kc.clients.findOne({ id: UUID });
    expect(rep?.authorizationServicesEnabled).toBe(true);
    await kc.clients.update(
      { id: UUID },
      { ...rep, redirectUris: [...(rep?.redirectUris ?? []), "https://pr-1.preview.example.com/*"] },
    );
    const stored = (await dump(host, keycloakKeys.client(REALM, UUID)))[
      keycloakKeys.client(REALM, UUID)
    ] as KeycloakClientRecord;
    expect(stored.rep.redirectUris).toEqual([
      "https://app.example.com/*",
      "https://pr-1.preview.example.com/*",
    ]);
    expect(stored.authz?.resources).toEqual(["Default Resource"]);
    expect(await kc.clients.find({ clientId: "nobody" })).toEqual([]);
    // catchNotFound: a 404 is no client, not an error.
    expect(await kc.clients.findOne({ id: "no-such-id" })).toBeNull();
  });

  it("errors carry Keycloak's own message in either shape: 409 errorMessage, 400 error_description", async () => {
    const kc = await signedIn();
    const rep = await kc.clients.findOne({ id: UUID });
    const duplicate = await kc.clients
      .update({ id: UUID }, { ...rep, clientId: "taken" })
      .catch((e: unknown) => e);
    expect(duplicate).toMatchObject({ message: "Client already exists", response: { status: 409 } });
    const wildcard = await kc.clients
      .update({ id: UUID }, { ...rep, redirectUris: ["https://*.preview.example.com/*"] })
      .catch((e: unknown) => e);
    expect(wildcard).toMatchObject({ response: { status: 400 } });
    expect((wildcard as { responseData: unknown }).responseData).toEqual({
      error: "invalid_input",
      error_description: "A redirect URI is not a valid URI",
    });
  });

  it("a wrong secret is refused at the token endpoint with 401 unauthorized_client", async () => {
    const kc = new KeycloakAdminClient({ baseUrl: `https://${host}`, realmName: REALM });
    const err = await kc
      .auth({ grantType: "client_credentials", clientId: SERVICE.clientId, clientSecret: "wrong" })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ response: { status: 401 } });
    expect((err as { responseData: unknown }).responseData).toMatchObject({ error: "unauthorized_client" });
  });
});
