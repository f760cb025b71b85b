/**
 * Values from a plan, a run or a provider, written into Markdown that GitHub renders (the step
 * summary, the pull-request comment). GitHub makes links, images, mentions (`@user`), issue
 * references (`#123`), bare URLs and HTML out of text, some of it after Markdown parsing (its
 * mention, reference and autolink filters skip only code), so backslash escapes or entities are not
 * enough: every such value is written as a code span, where nothing is interpreted. In running text
 * a plain word (letters, digits, `-`, `_`: a line id, an error code) stays as it is, since nothing
 * can make markup of it.
 */

const PLAIN_WORD = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** CommonMark line endings; a value never starts a line of its own (an HTML block, a heading). */
const LINE_BREAK = /\r\n|\r|\n/g;

/**
 * A code span showing `text` exactly (CommonMark 6.1): fenced by one backtick more than its longest
 * backtick run, and padded with a space when it starts or ends with a backtick or a space (one
 * space each side is stripped again).
 */
function codeSpan(text: string): string {
  if (text === "") return "";
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A value shown as code whatever it is: an id, an item, a scope. */
export function mdCode(value: string): string {
  return codeSpan(value.replace(LINE_BREAK, " "));
}

/** A value in prose (a message, a warning): a plain word as it is, anything else as code. */
export function mdText(value: string): string {
  const text = value.replace(LINE_BREAK, " ");
  return PLAIN_WORD.test(text) ? text : codeSpan(text);
}

/**
 * `mdCode`/`mdText` output placed in a GFM table cell. The row is split at every `|` a backslash
 * does not take, code spans included, before anything else is parsed; so each `|` gets a backslash,
 * and backslashes right before it are doubled so that none of them takes the one added (GFM then
 * shows those doubled).
 */
export function mdCell(markdown: string): string {
  return markdown.replace(/(\\*)\|/g, (_, backslashes: string) => `${backslashes}${backslashes}\\|`);
}
