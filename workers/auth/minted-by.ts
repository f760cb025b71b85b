/**
 * Which token minted which (docs/storage.md, "Token lineage"): one empty-bodied R2 object per token
 * minted by a service token, `auth/minted-by/<minter's jti>/<jti>`, written before the token is
 * handed out. What a minted token may revoke is read from it with one `head`
 * (workers/auth/token-lineage.ts). Mints by a person, or by a token without a `jti`, record none:
 * a person may revoke any token anyway.
 */
export const MINTED_BY_PREFIX = "auth/minted-by/";

const keyOf = (minter: string, jti: string) =>
  `${MINTED_BY_PREFIX}${encodeURIComponent(minter)}/${encodeURIComponent(jti)}`;

export async function recordMintedBy(bucket: R2Bucket, minter: string, jti: string): Promise<void> {
  await bucket.put(keyOf(minter, jti), "", { customMetadata: { minter, jti } });
}

export async function wasMintedBy(bucket: R2Bucket, minter: string, jti: string): Promise<boolean> {
  return (await bucket.head(keyOf(minter, jti))) !== null;
}
