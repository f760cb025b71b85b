/** Accounts and buckets of the emulated Cloudflare v4 API (one object for api.cloudflare.com). */
import { type R2Bucket, type R2Token, r2Keys } from "../../dev/emulators/r2cors";
import { emulatorStub } from "./emulators";

export const CLOUDFLARE_API_HOST = "api.cloudflare.com";

export function freshR2Account(): { account: string; token: string; bucket: string } {
  const hex = crypto.randomUUID().replaceAll("-", "");
  return { account: hex, token: `cf-${crypto.randomUUID()}`, bucket: `assets-${hex.slice(0, 8)}` };
}

export async function seedR2(entries: { token?: [string, R2Token]; bucket?: [string, string, R2Bucket] }) {
  const seed: Record<string, unknown> = {};
  if (entries.token) seed[r2Keys.token(entries.token[0])] = entries.token[1];
  if (entries.bucket) seed[r2Keys.bucket(entries.bucket[0], entries.bucket[1])] = entries.bucket[2];
  await emulatorStub(CLOUDFLARE_API_HOST).seed(seed);
}

export async function r2Bucket(account: string, bucket: string): Promise<R2Bucket | undefined> {
  const key = r2Keys.bucket(account, bucket);
  return (await emulatorStub(CLOUDFLARE_API_HOST).dump(key))[key] as R2Bucket | undefined;
}
