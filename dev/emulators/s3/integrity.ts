/**
 * The body checks S3 makes on a PUT: `x-amz-content-sha256` must match the body unless it says
 * UNSIGNED-PAYLOAD, and PutBucketCors needs Content-MD5 or a flexible checksum
 * (`x-amz-checksum-crc32|crc32c|crc64nvme|sha1|sha256`, which SDKs send with
 * `x-amz-sdk-checksum-algorithm`). Every one is recomputed; a mismatch is 400 BadDigest.
 */

function b64(bytes: ArrayBuffer | Uint8Array): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

export async function sha256Hex(body: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", body);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reflected 32-bit CRC tables: CRC-32 (ISO-HDLC) and CRC-32C (Castagnoli). */
const crc32Table = (poly: number) =>
  Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? poly ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
const CRC32_TABLE = crc32Table(0xedb88320);
const CRC32C_TABLE = crc32Table(0x82f63b78);

function crc32With(table: number[], body: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of body) c = (table[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export const crc32 = (body: Uint8Array) => crc32With(CRC32_TABLE, body);
export const crc32c = (body: Uint8Array) => crc32With(CRC32C_TABLE, body);

/** CRC-64/NVME: reflected polynomial 0x9A6C9329AC4BC9B5, all-ones init and final xor. */
const MASK64 = 0xffffffffffffffffn;
const CRC64_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = BigInt(n);
  for (let k = 0; k < 8; k += 1) c = c & 1n ? 0x9a6c9329ac4bc9b5n ^ (c >> 1n) : c >> 1n;
  return c;
});

export function crc64nvme(body: Uint8Array): bigint {
  let c = MASK64;
  for (const byte of body) c = (CRC64_TABLE[Number((c ^ BigInt(byte)) & 0xffn)] as bigint) ^ (c >> 8n);
  return (c ^ MASK64) & MASK64;
}

/** A CRC as S3 sends it: its big-endian bytes, base64. */
function crcBase64(value: number | bigint, bytes: 4 | 8): string {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  if (bytes === 4) view.setUint32(0, Number(value));
  else view.setBigUint64(0, BigInt(value));
  return b64(out);
}

/** The checksum headers' names and what a body's value would be (base64, as S3 sends them). */
const CHECKSUMS: Record<string, [label: string, compute: (b: Uint8Array) => Promise<string>]> = {
  "x-amz-checksum-crc32": ["CRC32", async (b) => crcBase64(crc32(b), 4)],
  "x-amz-checksum-crc32c": ["CRC32C", async (b) => crcBase64(crc32c(b), 4)],
  "x-amz-checksum-crc64nvme": ["CRC64NVME", async (b) => crcBase64(crc64nvme(b), 8)],
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
    const [label, compute] = CHECKSUMS[checksum] as [string, (b: Uint8Array) => Promise<string>];
    if (headers.get(checksum) !== (await compute(body))) {
      return {
        code: "BadDigest",
        message: `The ${label} you specified did not match the calculated checksum.`,
      };
    }
  }
  return null;
}
