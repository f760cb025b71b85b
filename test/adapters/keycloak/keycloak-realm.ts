/** A fresh emulated Keycloak server with one realm and one client, and an adapter context. */
import {
  type KeycloakClientRecord,
  type KeycloakServiceAccount,
  keycloakClient,
  keycloakKeys,
} from "../../../dev/emulators/keycloak";
import { keycloakAdapter } from "../../../workers/adapters/keycloak";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { emulatorStub } from "../../helpers/emulators";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const REALM = "previews";
export const CLIENT = "preview-app";
export const SERVICE = { clientId: "sponson", secret: "test-only-keycloak-secret-5e1f" };

export function keycloakOp(name: string): OpSpec {
  const op = keycloakAdapter.ops.find((o) => o.name === name);
  if (!op) throw new Error(`no op ${name}`);
  return op;
}

export async function keycloakRealm(
  lists: { redirectUris?: string[]; webOrigins?: string[]; postLogout?: string[] },
  failure?: SetupFailure,
) {
  const host = `t${crypto.randomUUID().slice(0, 8)}.keycloak.example.com`;
  const uuid = crypto.randomUUID();
  const stub = emulatorStub(host);
  await stub.seed({
    [keycloakKeys.realm(REALM)]: true,
    [keycloakKeys.service(REALM, SERVICE.clientId)]: {
      secret: SERVICE.secret,
      roles: failure === "forbidden" ? ["view-clients"] : ["manage-clients"],
    } satisfies KeycloakServiceAccount,
    ...(failure === "missing"
      ? {}
      : { [keycloakKeys.client(REALM, uuid)]: keycloakClient(uuid, CLIENT, lists) }),
  });
  const secret = failure === "unauthenticated" ? "wrong-keycloak-secret-9a8b" : SERVICE.secret;
  const config = { type: "keycloak", host, realm: REALM, clientId: SERVICE.clientId, clientSecret: secret };
  const h = harness(keycloakAdapter, config, [secret]);
  const record = async () => {
    const key = keycloakKeys.client(REALM, uuid);
    return (await stub.dump(key))[key] as KeycloakClientRecord | undefined;
  };
  const setRecord = (r: KeycloakClientRecord) => stub.seed({ [keycloakKeys.client(REALM, uuid)]: r });
  return { ...h, host, uuid, secret, record, setRecord };
}
