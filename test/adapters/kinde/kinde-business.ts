/** A fresh emulated Kinde business with one application, and an adapter context. */

import { KINDE_ALL_SCOPES } from "../../../dev/emulators/kinde";
import { kindeAdapter } from "../../../workers/adapters/kinde";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { freshKindeDomain, kindeApp, seedKinde } from "../../helpers/emulators-kinde";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const APP = "b3c4d5e6f7a8";
export const M2M = { clientId: "m2m-sponson", clientSecret: "kinde-m2m-secret-77a1c9" };

export function kindeOp(name: string): OpSpec {
  const op = kindeAdapter.ops.find((o) => o.name === name);
  if (!op) throw new Error(`no op ${name}`);
  return op;
}

export async function kindeBusiness(
  lists: { redirect_urls?: string[]; logout_urls?: string[] },
  failure?: SetupFailure,
) {
  const domain = freshKindeDomain();
  const scopes =
    failure === "forbidden" ? KINDE_ALL_SCOPES.filter((s) => !s.startsWith("create:")) : KINDE_ALL_SCOPES;
  await seedKinde(domain, {
    m2m: { ...M2M, scopes },
    apps: failure === "missing" ? {} : { [APP]: lists },
  });
  const secret = failure === "unauthenticated" ? "wrong-kinde-secret-1b2c" : M2M.clientSecret;
  const h = harness(kindeAdapter, { type: "kinde", domain, clientId: M2M.clientId, clientSecret: secret }, [
    secret,
  ]);
  return { ...h, domain, secret, app: () => kindeApp(domain, APP) };
}
