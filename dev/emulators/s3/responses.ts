/** S3's answers: the XML error envelope `<Error><Code/><Message/><RequestId/><HostId/></Error>`. */
import { escapeXml } from "./cors-xml";

function requestIds(): Record<string, string> {
  const id = crypto.randomUUID().replaceAll("-", "").slice(0, 16).toUpperCase();
  return { "x-amz-request-id": id, "x-amz-id-2": btoa(crypto.randomUUID()), server: "AmazonS3" };
}

export function s3Xml(status: number, xml: string): Response {
  return new Response(xml, { status, headers: { "content-type": "application/xml", ...requestIds() } });
}

export function s3Empty(status: number): Response {
  return new Response(null, { status, headers: requestIds() });
}

/** Extra children (BucketName, Region, AWSAccessKeyId …) come after Message, as S3 sends them. */
export function s3Error(status: number, code: string, message: string, extra: Record<string, string> = {}) {
  const ids = requestIds();
  const more = Object.entries(extra)
    .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
    .join("");
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${more}<RequestId>${ids["x-amz-request-id"]}</RequestId><HostId>${ids["x-amz-id-2"]}</HostId></Error>`;
  return new Response(xml, { status, headers: { "content-type": "application/xml", ...ids } });
}

export const MALFORMED_XML =
  "The XML you provided was not well-formed or did not validate against our published schema";
export const ACCESS_DENIED = "Access Denied";
