/**
 * SigV4 header authentication as S3 checks it (AWS "Signature Version 4: authenticating requests,
 * Authorization header"), written independently of the adapter's signer (aws4fetch) so that a
 * canonicalization bug on either side fails the tests instead of agreeing with itself. Fidelity
 * tests replay AWS's documented examples (AKIAIOSFODNN7EXAMPLE) through it.
 */

export interface SigV4Authorization {
  accessKeyId: string;
  /** yyyymmdd */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

const AUTH =
  /^AWS4-HMAC-SHA256\s+Credential=([^/\s,]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request\s*,\s*SignedHeaders=([a-z0-9;-]+)\s*,\s*Signature=([0-9a-f]{64})$/;

/** The parts of an `Authorization: AWS4-HMAC-SHA256 …` header; null when malformed. */
export function parseSigV4(header: string): SigV4Authorization | null {
  const m = header.trim().match(AUTH);
  if (!m) return null;
  const [, accessKeyId, date, region, service, signed, signature] = m as unknown as string[];
  return {
    accessKeyId: accessKeyId as string,
    date: date as string,
    region: region as string,
    service: service as string,
    signedHeaders: (signed as string).split(";"),
    signature: signature as string,
  };
}

const encoder = new TextEncoder();

/** RFC 3986 percent-encoding of every byte but the unreserved characters (and `/` when asked). */
function uriEncode(text: string, keepSlash: boolean): string {
  let out = "";
  for (const byte of encoder.encode(text)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === "/")) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, "%20"));
  } catch {
    return text;
  }
}

function canonicalQuery(search: string): string {
  return search
    .replace(/^\?/, "")
    .split("&")
    .filter((pair) => pair !== "")
    .map((pair) => {
      const i = pair.indexOf("=");
      const [k, v] = i < 0 ? [pair, ""] : [pair.slice(0, i), pair.slice(i + 1)];
      return [uriEncode(decode(k), false), uriEncode(decode(v), false)] as const;
    })
    .sort(([k1, v1], [k2, v2]) => (k1 < k2 ? -1 : k1 > k2 ? 1 : v1 < v2 ? -1 : v1 > v2 ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function hmac(key: ArrayBuffer | Uint8Array, text: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, encoder.encode(text));
}

export interface SignedRequest {
  method: string;
  url: string;
  headers: Headers;
}

/**
 * The signature S3 would compute for `request` with `secretAccessKey` (S3: no path normalization).
 * Other services sign the body's hash without sending it: they pass it as `payloadHash`.
 */
export async function expectedSignature(
  request: SignedRequest,
  auth: SigV4Authorization,
  secretAccessKey: string,
  payloadHash?: string,
): Promise<string> {
  const url = new URL(request.url);
  const amzDate = request.headers.get("x-amz-date") ?? "";
  const canonicalHeaders = auth.signedHeaders
    .map((name) => {
      const value =
        name === "host" ? (request.headers.get("host") ?? url.host) : (request.headers.get(name) ?? "");
      return `${name}:${value.trim().replace(/\s+/g, " ")}\n`;
    })
    .join("");
  const canonicalRequest = [
    request.method.toUpperCase(),
    uriEncode(decode(url.pathname), true),
    canonicalQuery(url.search),
    canonicalHeaders,
    auth.signedHeaders.join(";"),
    request.headers.get("x-amz-content-sha256") ?? payloadHash ?? "UNSIGNED-PAYLOAD",
  ].join("\n");
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256Hex(canonicalRequest)].join("\n");
  let key = await hmac(encoder.encode(`AWS4${secretAccessKey}`), auth.date);
  for (const part of [auth.region, auth.service, "aws4_request"]) key = await hmac(key, part);
  const signature = await hmac(key, stringToSign);
  return [...new Uint8Array(signature)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
