/**
 * An item's host as a browser reads it, and whether the item is written that way (docs/design.md,
 * "Security model", the URL shape check). A browser reads a URL with the WHATWG URL parser, which
 * maps a host name per UTS #46 before anything looks it up: fullwidth letters become ASCII, a soft
 * hyphen (U+00AD) or a zero-width space (U+200B) vanishes, an ideographic full stop becomes `.`,
 * percent-escapes are decoded, a name in another script becomes punycode, and `https:host` or
 * `https:/host` read as `https://host`. A check that reads the host any other way judges a name no
 * browser visits: `https://*.ｖｅｒｃｅｌ.app/cb` is `*.vercel.app` to the browser. `new URL()` is
 * that parser in workerd and in Node alike (the CLI's offline check), so it is the one used here,
 * and an item whose host it reads otherwise than written is refused rather than guessed at: what
 * the provider stores and compares is the string as written.
 */

/** Schemes a browser opens an item of: their items must be written `scheme://host…`. */
const WEB_SCHEMES: ReadonlySet<string> = new Set(["http", "https"]);

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
/** A host written in printable ASCII: nothing to map, nothing invisible. */
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** Why an item is not written as a browser reads it. */
export type Misread =
  /** `https:host` or `https:/host`: a browser adds the missing slashes. */
  | { kind: "slashes"; read: string }
  /** The parser reads no host at all (e.g. a zero-width joiner in it). */
  | { kind: "unreadable" }
  /** A host the parser maps to another: `read` is what a browser visits. */
  | { kind: "differs"; read: string; written: string };

export interface ItemHost {
  /** Lowercase scheme, or null for a bare domain (or a bare `*`). */
  scheme: string | null;
  /**
   * The host a browser reads, lowercase, without a port, user info or one trailing dot; the host
   * as written when a browser reads none (a custom scheme's, or an unreadable item's).
   */
  host: string;
  /** Null when the item is written as a browser reads it (or has a custom scheme: never judged). */
  misread: Misread | null;
}

/** The host of `scheme://<authority>…` as written: after the last `@`, before the port. */
function writtenHost(rest: string): string {
  const authority = rest.split(/[/?#]/, 1)[0] ?? "";
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":", 1)[0] ?? "");
}

function browserHost(url: string): string | null {
  return URL.canParse(url) ? new URL(url).hostname : null;
}

const withoutDot = (host: string) => (host.endsWith(".") ? host.slice(0, -1) : host);

/** `item`'s host as a browser reads it, and whether it is written so. */
export function itemHost(item: string): ItemHost {
  const match = SCHEME.exec(item);
  const named = match ? (match[1] as string).toLowerCase() : null;
  const slashed = match !== null && item.startsWith("//", match[0].length);
  const web = named !== null && WEB_SCHEMES.has(named);
  if (named !== null && !web && slashed) {
    // A custom scheme (`com.example.app://callback`) has no DNS host: read as written, not judged.
    return {
      scheme: named,
      host: withoutDot(writtenHost(item.slice(match[0].length + 2)).toLowerCase()),
      misread: null,
    };
  }
  if (web && !slashed) {
    const read = browserHost(item);
    if (read === null) return { scheme: named, host: "", misread: { kind: "unreadable" } };
    return { scheme: named, host: withoutDot(read), misread: { kind: "slashes", read } };
  }
  // A web URL, or a bare domain (Firebase's authorized domains, a CORS `*`): read as a browser
  // reads the host of `https://<item>`.
  const scheme = web ? named : null;
  const written = web ? writtenHost(item.slice((match?.[0].length ?? 0) + 2)) : writtenHost(item);
  const read = browserHost(web ? item : `https://${item}`);
  if (read === null)
    return { scheme, host: withoutDot(written.toLowerCase()), misread: { kind: "unreadable" } };
  const asWritten = PRINTABLE_ASCII.test(written) ? written.toLowerCase() : null;
  return {
    scheme,
    host: withoutDot(read),
    misread: asWritten === read ? null : { kind: "differs", read, written },
  };
}

/** A host with every character outside printable ASCII spelled out: `ver<U+00AD>cel.app`. */
export function visibleHost(host: string): string {
  return host.replace(
    /[^\x21-\x7e]/gu,
    (ch) => `<U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`,
  );
}
