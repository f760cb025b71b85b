/**
 * The S3 CORS document (Amazon S3 API reference, PutBucketCors):
 * `<CORSConfiguration><CORSRule>…</CORSRule>…`. Workers have no DOMParser, and the schema is small and
 * closed, so this reads exactly that schema and nothing else (no attributes on children, no CDATA): anything
 * else is "not a CORS document" (null).
 */

export interface S3CorsRule {
  ID?: string;
  AllowedHeader?: string[];
  AllowedMethod: string[];
  AllowedOrigin: string[];
  ExposeHeader?: string[];
  MaxAgeSeconds?: number;
}

export const S3_XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";
const LISTS = ["AllowedHeader", "AllowedMethod", "AllowedOrigin", "ExposeHeader"] as const;
type ListName = (typeof LISTS)[number];

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function xmlText(raw: string): string | null {
  let bad = false;
  const text = raw.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);|&/gi, (whole, name: string | undefined) => {
    if (name === undefined) bad = true;
    else if (name.startsWith("#x") || name.startsWith("#X"))
      return String.fromCodePoint(parseInt(name.slice(2), 16));
    else if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    else if (name in ENTITIES) return ENTITIES[name] as string;
    else bad = true;
    return whole;
  });
  return bad || text.includes("<") ? null : text;
}

/** Text content only (the document has no attributes we write but the constant xmlns). */
export function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const PROLOG = /^\s*(<\?xml[^?]*\?>)?\s*/;
const ROOT = /^<CORSConfiguration(\s+xmlns="[^"]*")?\s*>([\s\S]*)<\/CORSConfiguration>\s*$/;
const ELEMENT = /^\s*<([A-Za-z]+)>([^<]*)<\/\1>/;

function parseRule(body: string): S3CorsRule | null {
  const rule: Partial<Record<string, unknown>> = {};
  let rest = body;
  while (rest.trim() !== "") {
    const m = rest.match(ELEMENT);
    if (!m?.[1] || m[2] === undefined) return null;
    const [name, text] = [m[1], xmlText(m[2])];
    if (text === null) return null;
    if ((LISTS as readonly string[]).includes(name)) {
      rule[name] = [...((rule[name] as string[] | undefined) ?? []), text];
    } else if (name === "ID" && rule.ID === undefined) {
      rule.ID = text;
    } else if (
      name === "MaxAgeSeconds" &&
      rule.MaxAgeSeconds === undefined &&
      /^\d{1,10}$/.test(text.trim())
    ) {
      rule.MaxAgeSeconds = Number(text.trim());
    } else {
      return null;
    }
    rest = rest.slice(m[0].length);
  }
  return { AllowedMethod: [], AllowedOrigin: [], ...rule } as S3CorsRule;
}

/** The rules of a CORS document, or null when it is not one. */
export function parseCorsXml(xml: string): S3CorsRule[] | null {
  const root = xml.replace(PROLOG, "").match(ROOT);
  if (!root) return null;
  const rules: S3CorsRule[] = [];
  let rest = root[2] ?? "";
  while (rest.trim() !== "") {
    const m = rest.match(/^\s*<CORSRule>([\s\S]*?)<\/CORSRule>/);
    const rule = m?.[1] === undefined ? null : parseRule(m[1]);
    if (!m || !rule) return null;
    rules.push(rule);
    rest = rest.slice(m[0].length);
  }
  return rules;
}

function element(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}

/** Children in the order of S3's PutBucketCors request syntax. */
export function serializeCorsXml(rules: readonly S3CorsRule[]): string {
  const body = rules
    .map((rule) => {
      const parts: string[] = [];
      if (rule.ID !== undefined) parts.push(element("ID", rule.ID));
      for (const name of LISTS as readonly ListName[]) {
        for (const value of rule[name] ?? []) parts.push(element(name, value));
      }
      if (rule.MaxAgeSeconds !== undefined) parts.push(element("MaxAgeSeconds", String(rule.MaxAgeSeconds)));
      return `<CORSRule>${parts.join("")}</CORSRule>`;
    })
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<CORSConfiguration xmlns="${S3_XMLNS}">${body}</CORSConfiguration>`;
}

/** `<Error><Code/><Message/>…</Error>`: S3's error envelope, read leniently. */
export function parseS3Error(xml: string): { code?: string; message?: string } {
  const field = (name: string) => {
    const m = xml.match(new RegExp(`<${name}>([^<]*)</${name}>`));
    return m?.[1] === undefined ? undefined : (xmlText(m[1]) ?? undefined);
  };
  return { code: field("Code"), message: field("Message") };
}
