/**
 * One path for routing and for authorization (docs/security.md, "One path"). Before anything reads
 * the path, it is decoded segment by segment until no escape is left (so `%6F`, `%6f` and `%256F`
 * are all `o`), refused when its encoding is ambiguous, and re-encoded once. The router and the
 * route table then read the same text: a path that reaches a handler was authorized as that handler's
 * route. Pure: the raw path in, the canonical path or the rule that refused it out.
 *
 * Ambiguous, so refused 400 (a proxy, a CDN's URL normalization or a client could each read them
 * differently, and no route needs them):
 * - an escape that is not UTF-8 or not `%` + two hex digits;
 * - a segment that decodes to `.` or `..`;
 * - a decoded NUL or other control character, or a backslash;
 * - an encoded `/`, except in the one segment that names an identifier containing `/` (a branch
 *   scope's name, `branch-feature/x`, and a lock key, `scope:<id>/<environment>/<scope>`), where the
 *   router reads it as part of that one segment either way;
 * - an escape still left after MAX_DECODE_ROUNDS decodings.
 * No legitimate path holds a literal `%` (no environment, scope or key may), so decoding to a
 * fixed point never changes what a plain path means.
 */
import { SponsonError } from "../../shared/errors";

export const MAX_DECODE_ROUNDS = 4;

export type CanonicalPath = { ok: true; path: string } | { ok: false; error: SponsonError };

const ESCAPE = /%[0-9A-Fa-f]{2}/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
// C0 controls, DEL and the C1 controls: never part of a name, and some servers cut paths at NUL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function refused(rule: string, message: string): CanonicalPath {
  return { ok: false, error: new SponsonError("VALIDATION", message, { rule }) };
}

/** Segments (1-based after the leading empty one) whose decoded text may hold `/`. */
function slashAllowed(decoded: readonly string[], index: number): boolean {
  // /v1/locks/{key} and /v1/locks/{key}/hold
  if (decoded[1] === "v1" && decoded[2] === "locks" && index === 3) {
    if (decoded.length === 4 || (decoded.length === 5 && decoded[4] === "hold")) return true;
  }
  // /v1/scopes/{environment}/{scope}/{action}
  return decoded[1] === "v1" && decoded[2] === "scopes" && index === 4 && decoded.length === 6;
}

function decodeSegment(raw: string): string | CanonicalPath {
  let text = raw;
  for (let round = 0; round <= MAX_DECODE_ROUNDS; round++) {
    if (BAD_PERCENT.test(text)) return refused("path.encoding", "the path has a `%` that is not an escape");
    if (!ESCAPE.test(text)) return text;
    if (round === MAX_DECODE_ROUNDS) break;
    try {
      text = decodeURIComponent(text);
    } catch {
      return refused("path.encoding", "the path's percent-encoding is not UTF-8");
    }
  }
  return refused("path.encoding", `the path is encoded more than ${MAX_DECODE_ROUNDS} times`);
}

/** Encodes a decoded segment for the router: every reserved or non-ASCII character escaped once. */
function encodeSegment(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The canonical form of a URL's raw `pathname`, or why it is refused. */
export function canonicalPath(raw: string): CanonicalPath {
  if (!raw.includes("%") && !raw.includes("\\")) return { ok: true, path: raw };
  const decoded: string[] = [];
  for (const segment of raw.split("/")) {
    const text = decodeSegment(segment);
    if (typeof text !== "string") return text;
    decoded.push(text);
  }
  for (const [index, text] of decoded.entries()) {
    if (text === "." || text === "..") {
      return refused("path.dot-segment", "a path segment may not decode to `.` or `..`");
    }
    if (CONTROL.test(text)) return refused("path.control", "the path may not hold control characters");
    if (text.includes("\\")) return refused("path.backslash", "the path may not hold a backslash");
    if (text.includes("/") && !slashAllowed(decoded, index)) {
      return refused("path.encoded-slash", "an encoded `/` is allowed only inside a scope name or lock key");
    }
  }
  return { ok: true, path: decoded.map(encodeSegment).join("/") };
}
