/**
 * `npm start`: the account trusts the local issuer (https://sponson.localhost, and the runtime
 * tests' one: ../demo-issuers.ts) for
 * `sts.amazonaws.com`, with one role per federated example connection (examples/connections.local.json)
 * whose trust policy names that connection's subject only. Local values, not secrets.
 */
import { DEMO_ISSUERS } from "../demo-issuers";
import type { EmulatorState } from "../emulator";
import { type StsOidcProvider, type StsRole, stsKeys } from "./state";

export const DEMO_ISSUER = DEMO_ISSUERS[0];
export const DEMO_ROLES = {
  s3: "arn:aws:iam::123456789012:role/sponson-s3-federated",
  cognito: "arn:aws:iam::123456789012:role/sponson-cognito-federated",
} as const;

export function provisionDemoAccount(state: EmulatorState): void {
  if (state.get<boolean>(stsKeys.demoProvisioned)) return;
  for (const issuer of DEMO_ISSUERS)
    state.put<StsOidcProvider>(stsKeys.provider(issuer), { url: issuer, clientIds: ["sts.amazonaws.com"] });
  for (const [family, arn] of Object.entries(DEMO_ROLES))
    state.put<StsRole>(stsKeys.role(arn), {
      trust: {
        issuer: [...DEMO_ISSUERS],
        subject: `sponson:connection:${family}-federated`,
        audience: "sts.amazonaws.com",
      },
    });
  state.put(stsKeys.demoProvisioned, true);
}
