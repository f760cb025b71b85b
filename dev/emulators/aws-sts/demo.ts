/**
 * `npm start`: the account trusts the local issuer (https://sponson.localhost) for
 * `sts.amazonaws.com`, with one role per federated example connection (examples/connections.local.json)
 * whose trust policy names that connection's subject only. Local values, not secrets.
 */
import type { EmulatorState } from "../emulator";
import { type StsOidcProvider, type StsRole, stsKeys } from "./state";

export const DEMO_ISSUER = "https://sponson.localhost";
export const DEMO_ROLES = {
  s3: "arn:aws:iam::123456789012:role/sponson-s3-federated",
  cognito: "arn:aws:iam::123456789012:role/sponson-cognito-federated",
} as const;

export function provisionDemoAccount(state: EmulatorState): void {
  if (state.get<boolean>(stsKeys.demoProvisioned)) return;
  state.put<StsOidcProvider>(stsKeys.provider(DEMO_ISSUER), {
    url: DEMO_ISSUER,
    clientIds: ["sts.amazonaws.com"],
  });
  for (const [family, arn] of Object.entries(DEMO_ROLES))
    state.put<StsRole>(stsKeys.role(arn), {
      trust: {
        issuer: DEMO_ISSUER,
        subject: `sponson:connection:${family}-federated`,
        audience: "sts.amazonaws.com",
      },
    });
  state.put(stsKeys.demoProvisioned, true);
}
