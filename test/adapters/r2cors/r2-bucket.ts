/** A fresh emulated R2 bucket, an API token for its account, and an adapter context. */

import type { OpSpec } from "../../../workers/adapters/op-spec";
import { r2CorsAdapter } from "../../../workers/adapters/r2cors";
import { freshR2Account, r2Bucket, seedR2 } from "../../helpers/emulators-r2cors";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const corsOrigin = r2CorsAdapter.ops[0] as OpSpec;

export const EXISTING_RULES = [
  { id: "app", allowed: { origins: ["https://app.example.com"], methods: ["GET"] }, maxAgeSeconds: 600 },
  {
    id: "previews",
    allowed: { origins: ["http://localhost:5173"], methods: ["GET", "PUT"], headers: ["content-type"] },
  },
];

export async function r2BucketWithCors(rules: unknown[] | undefined, failure?: SetupFailure) {
  const { account, token, bucket } = freshR2Account();
  if (failure !== "unauthenticated")
    await seedR2({ token: [token, { accounts: [account], readOnly: failure === "forbidden" }] });
  if (failure !== "missing") await seedR2({ bucket: [account, bucket, rules ? { rules } : {}] });
  const h = harness(r2CorsAdapter, { type: "r2", accountId: account, apiToken: token }, [token]);
  return { ...h, account, token, bucket, stored: () => r2Bucket(account, bucket) };
}
