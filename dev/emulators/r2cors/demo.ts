/**
 * `npm start`: on the demo account, an API token (scripts/start.mjs passes it as R2_API_TOKEN) and
 * any bucket named `sponson-demo-…` exist on first use, the bucket with one rule of its own.
 * Local values, not secrets. Storage keys: `demo:token`, `demo:bucket:<name>` → true.
 */
import type { EmulatorState } from "../emulator";
import { type R2Bucket, type R2Token, r2Keys } from "./state";

/** Account ids are 32 hex digits; this one spells nothing real. */
export const DEMO_R2 = {
  account: "5b0b5b0b5b0b5b0b5b0b5b0b5b0bde70",
  token: "local-demo-r2-api-token",
} as const;

export function provisionDemoR2(account: string, bucket: string, state: EmulatorState): void {
  if (account !== DEMO_R2.account || !bucket.startsWith("sponson-demo-")) return;
  if (!state.get<boolean>("demo:token")) {
    state.put<R2Token>(r2Keys.token(DEMO_R2.token), { accounts: [DEMO_R2.account] });
    state.put("demo:token", true);
  }
  if (!state.get<boolean>(`demo:bucket:${bucket}`)) {
    state.put<R2Bucket>(r2Keys.bucket(account, bucket), {
      rules: [
        {
          id: "app",
          allowed: { origins: ["https://app.example.com"], methods: ["GET"] },
          maxAgeSeconds: 600,
        },
      ],
    });
    state.put(`demo:bucket:${bucket}`, true);
  }
}
