/**
 * The body checks S3 makes on a PUT (PROVIDERS.md §6): `x-amz-content-sha256` must match the body
 * unless it says UNSIGNED-PAYLOAD, and PutBucketCors needs Content-MD5 or a flexible checksum
 * (`x-amz-checksum-crc32|crc32c|sha1|sha256`). CRC32C is accepted without being recomputed.
 */

function b64(bytes: ArrayBuffer | Uint8Array): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

export async function sha256Hex(body: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", body);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(body: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of body) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The checksum headers' names and what a body's value would be (base64, as S3 sends them). */
const CHECKSUMS: Record<string, [label: string, compute: ((b: Uint8Array) => Promise<string>) | null]> = {
  "x-amz-checksum-crc32": [
    "CRC32",
    async (b) => {
      const bytes = new Uint8Array(4);
      new DataView(bytes.buffer).setUint32(0, crc32(b)); // big-endian, as S3 encodes it
      return b64(bytes);
    },
  ],
  "x-amz-checksum-crc32c": ["CRC32C", null],
  "x-amz-checksum-sha1": ["SHA1", async (b) => b64(await crypto.subtle.digest("SHA-1", b))],
  "x-amz-checksum-sha256": ["SHA256", async (b) => b64(await crypto.subtle.digest("SHA-256", b))],
};

export type IntegrityProblem = { code: string; message: string } | null;

/** Content-MD5 or a checksum header must be there and match the body. */
export async function checkIntegrity(headers: Headers, body: Uint8Array): Promise<IntegrityProblem> {
  const md5 = headers.get("content-md5");
  const checksum = Object.keys(CHECKSUMS).find((name) => headers.has(name));
  if (md5 === null && checksum === undefined) {
    return { code: "InvalidRequest", message: "Missing required header for this request: Content-MD5" };
  }
  if (md5 !== null) {
    if (!/^[A-Za-z0-9+/]{22}==$/.test(md5)) {
      return { code: "InvalidDigest", message: "The Content-MD5 you specified was invalid." };
    }
    if (md5 !== b64(await crypto.subtle.digest("MD5", body))) {
      return { code: "BadDigest", message: "The Content-MD5 you specified did not match what we received." };
    }
  }
  if (checksum !== undefined) {
    const [label, compute] = CHECKSUMS[checksum] as [string, ((b: Uint8Array) => Promise<string>) | null];
    if (compute && headers.get(checksum) !== (await compute(body))) {
      return {
        code: "BadDigest",
        message: `The ${label} you specified did not match the calculated checksum.`,
      };
    }
  }
  return null;
}
