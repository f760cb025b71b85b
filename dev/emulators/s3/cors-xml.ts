/**
 * The emulator's own reading and writing of S3's CORS document, independent of the adapter's: a
 * small XML element parser (elements, text, CDATA, the five entities and character references,
 * attributes ignored, comments and processing instructions skipped) and then the CORS schema
 * checked on the tree, so a mistake on either side fails the tests instead of agreeing with itself.
 */

export interface CorsRule {
  ID?: string;
  AllowedHeader?: string[];
  AllowedMethod: string[];
  AllowedOrigin: string[];
  ExposeHeader?: string[];
  MaxAgeSeconds?: number;
}

interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(raw: string): string | null {
  let ok = true;
  const out = raw.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(";")) ok = false;
    else if (/^#x[0-9a-f]+$/i.test(ref)) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    else if (/^#\d+$/.test(ref)) return String.fromCodePoint(Number(ref.slice(1)));
    else if (Object.hasOwn(NAMED, ref)) return NAMED[ref] as string;
    else ok = false;
    return whole;
  });
  return ok ? out : null;
}

/** The document's root element, or null when it is not well-formed. */
export function parseXml(xml: string): XmlElement | null {
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const chunk = xml.slice(i, lt < 0 ? xml.length : lt);
    if (chunk.trim() !== "") {
      const top = stack.at(-1);
      const text = decodeEntities(chunk);
      if (!top || text === null) return null;
      top.text += text;
    }
    if (lt < 0) break;
    if (xml.startsWith("<?", lt) || xml.startsWith("<!--", lt)) {
      const end = xml.indexOf(xml.startsWith("<?", lt) ? "?>" : "-->", lt);
      if (end < 0) return null;
      i = end + (xml.startsWith("<?", lt) ? 2 : 3);
      continue;
    }
    if (xml.startsWith("<![CDATA[", lt)) {
      const end = xml.indexOf("]]>", lt);
      const top = stack.at(-1);
      if (end < 0 || !top) return null;
      top.text += xml.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    const gt = xml.indexOf(">", lt);
    if (gt < 0) return null;
    const tag = xml.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith("/")) {
      const open = stack.pop();
      if (!open || open.name !== tag.slice(1).trim()) return null;
      continue;
    }
    const selfClosing = tag.endsWith("/");
    const name = (selfClosing ? tag.slice(0, -1) : tag).trim().split(/\s+/)[0] ?? "";
    if (!/^[A-Za-z_][\w.-]*$/.test(name)) return null;
    const element: XmlElement = { name, children: [], text: "" };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else if (root) return null;
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  return stack.length === 0 ? root : null;
}

const LISTS = ["AllowedHeader", "AllowedMethod", "AllowedOrigin", "ExposeHeader"] as const;

/** The rules of a CORS document, or null when it is not one (S3 then answers MalformedXML). */
export function readCorsDocument(xml: string): CorsRule[] | null {
  const root = parseXml(xml);
  if (root?.name !== "CORSConfiguration") return null;
  const rules: CorsRule[] = [];
  for (const node of root.children) {
    if (node.name !== "CORSRule") return null;
    const rule: CorsRule = { AllowedMethod: [], AllowedOrigin: [] };
    for (const child of node.children) {
      if (child.children.length > 0) return null;
      const list = LISTS.find((l) => l === child.name);
      if (list) {
        rule[list] = [...(rule[list] ?? []), child.text];
      } else if (child.name === "ID" && rule.ID === undefined) {
        rule.ID = child.text;
      } else if (child.name === "MaxAgeSeconds" && rule.MaxAgeSeconds === undefined) {
        if (!/^\s*\d{1,10}\s*$/.test(child.text)) return null;
        rule.MaxAgeSeconds = Number(child.text.trim());
      } else {
        return null;
      }
    }
    rules.push(rule);
  }
  return rules;
}

export function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** GetBucketCors' answer, children in S3's order. */
export function writeCorsDocument(rules: readonly CorsRule[]): string {
  const el = (name: string, text: string) => `<${name}>${escapeXml(text)}</${name}>`;
  const body = rules
    .map((rule) => {
      const parts = rule.ID === undefined ? [] : [el("ID", rule.ID)];
      for (const list of LISTS) for (const value of rule[list] ?? []) parts.push(el(list, value));
      if (rule.MaxAgeSeconds !== undefined) parts.push(el("MaxAgeSeconds", String(rule.MaxAgeSeconds)));
      return `<CORSRule>${parts.join("")}</CORSRule>`;
    })
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${body}</CORSConfiguration>`;
}
