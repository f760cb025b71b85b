/** A fresh emulated Entra tenant with one application, an app registration that may edit it, and an adapter context. */
import { entraAdapter } from "../../../workers/adapters/entra";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import {
  graphApp,
  graphApplication,
  guid,
  seedEntraTenant,
  seedGraphApp,
} from "../../helpers/emulators-entra";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const redirectUri = entraAdapter.ops[0] as OpSpec;

export interface EntraLists {
  web?: string[];
  spa?: string[];
  publicClient?: string[];
  logoutUrl?: string | null;
}

export async function entraTenant(lists: EntraLists, failure?: SetupFailure) {
  const tenantId = guid();
  const domain = `sponson${tenantId.slice(0, 8)}.onmicrosoft.com`;
  const clientId = guid();
  const secret = `test~${crypto.randomUUID().replaceAll("-", "")}`;
  const application = guid();
  await seedEntraTenant([tenantId, domain], {
    id: tenantId,
    clients: {
      [clientId]: {
        secret: failure === "unauthenticated" ? "another-secret" : secret,
        roles: [failure === "forbidden" ? "Application.Read.All" : "Application.ReadWrite.All"],
      },
    },
  });
  if (failure !== "missing") await seedGraphApp(tenantId, graphApplication(application, guid(), lists));
  const config = { type: "entra", tenant: domain, clientId, clientSecret: secret };
  const h = harness(entraAdapter, config, [secret]);
  const app = () => graphApp(tenantId, application);
  const params = (kind: "web" | "spa" | "publicClient", url: string) => ({ application, kind, url });
  return { ...h, tenantId, domain, clientId, secret, application, app, params };
}
