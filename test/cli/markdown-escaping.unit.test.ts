/**
 * Every value from a plan, a run or a provider reaches GitHub's Markdown (the step summary, the
 * pull-request comment) as text: a hostile plan item or provider message renders no link, image,
 * mention, issue reference or HTML tag, and cannot add a table cell (docs/cli.md, "The GitHub Action").
 *
 * No Markdown parser is installed, so the check follows the two CommonMark/GFM rules that matter
 * here, strictly: a table row's cells split at pipes not taken by a backslash escape, and a code
 * span is a backtick run closed by the next run of the same length. Everything outside code spans
 * must be free of markup characters; every hostile value must show in full inside one span.
 */
import { describe, it } from "vitest";
import { commentBody } from "../../action/comment";
import type { RunResult } from "../../cli/client";
import { refusedSummary, runSummary } from "../../cli/step-summary";

const HOSTILE = [
  "https://x.example/[click](https://evil)",
  "![img](https://evil/p.png)",
  "@octocat please look",
  "<img src=x onerror=alert(1)>",
  "<details><summary>open</summary>",
  "``code`` and `tick",
  "a | b \\| c \\",
  "line one\nline two\r\n| --- |",
  "fixes #123 and GH-7 and octo/repo#9",
  "javascript:alert(document.domain)",
  "www.evil.example",
  " [spaced](https://evil) ",
  "`",
];

function hostileResult(value: string): RunResult {
  return {
    run: {
      id: `run-${value}`,
      environment: "preview",
      scope: "pr-1",
      action: "apply",
      status: "failed",
      startedAt: 0,
      finishedAt: 1,
      error: { code: `PROVIDER_ERROR ${value}`, message: `Auth0 said: ${value}` },
    },
    lines: [
      {
        id: value,
        op: value,
        key: value,
        diff: "create",
        result: "failed",
        parent: value,
        error: { code: value, message: value },
      },
    ],
    drift: [{ line: value, key: value, kind: "missing", parent: null }],
    warnings: [value],
  } as RunResult;
}

/** A GFM table row's cells: `\` takes the next character, an untaken `|` ends a cell. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = "";
  for (let i = 0; i < row.length; i++) {
    const ch = row[i] as string;
    if (ch === "\\" && i + 1 < row.length) {
      cell += ch + row[++i];
    } else if (ch === "|") {
      out.push(cell);
      cell = "";
    } else cell += ch;
  }
  out.push(cell);
  // GFM drops the cell before a leading pipe and after a trailing one; `\|` stands for `|`.
  return out.slice(1, -1).map((c) => c.replaceAll("\\|", "|"));
}

/** Splits inline text into code spans (CommonMark 6.1) and what is outside them. */
function codeSpans(text: string): { spans: string[]; outside: string } {
  const spans: string[] = [];
  let outside = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "`") {
      outside += text[i++];
      continue;
    }
    const open = /^`+/.exec(text.slice(i))?.[0] as string;
    let j = i + open.length;
    let close = -1;
    while (j < text.length) {
      const run = /^`+/.exec(text.slice(j))?.[0];
      if (run === undefined) {
        j++;
        continue;
      }
      if (run.length === open.length) {
        close = j;
        break;
      }
      j += run.length;
    }
    if (close < 0) {
      // An unclosed run is literal text: a value escaped from its span.
      outside += open;
      i += open.length;
      continue;
    }
    let content = text.slice(i + open.length, close).replace(/\n/g, " ");
    if (content.startsWith(" ") && content.endsWith(" ") && content.trim() !== "")
      content = content.slice(1, -1);
    spans.push(content);
    i = close + open.length;
  }
  return { spans, outside };
}

/** What GitHub would turn into markup if it stood outside code. */
const MARKUP = [
  { name: "link or image", pattern: /[[\]]|\]\(|!\[/ },
  { name: "HTML tag", pattern: /</ },
  { name: "mention", pattern: /@/ },
  { name: "issue reference", pattern: /#\d|GH-\d/i },
  { name: "URL", pattern: /https?:|javascript:|www\./i },
  { name: "stray backtick", pattern: /`/ },
];

function inspect(markdown: string): { spans: string[]; problems: string[] } {
  const spans: string[] = [];
  const problems: string[] = [];
  for (const line of markdown.split("\n")) {
    if (line.startsWith("<!-- sponson-edge: environment=preview -->")) continue;
    let outside = "";
    if (line.startsWith("|")) {
      const row = cells(line);
      if (row.length !== 6) problems.push(`a row with ${row.length} cells: ${line}`);
      for (const cell of row) {
        const parsed = codeSpans(cell);
        spans.push(...parsed.spans);
        outside += ` ${parsed.outside}`;
      }
    } else if (line.startsWith("[Run ")) {
      // The one link: the run's dashboard page, its destination built here.
      const m =
        /^\[Run (.*) on the dashboard\]\(<https:\/\/sponson\.example\.com\/dashboard\/runs\/[^\s<>]*>\)$/.exec(
          line,
        );
      if (!m) problems.push(`the dashboard link changed shape: ${line}`);
      const parsed = codeSpans(m?.[1] ?? "");
      spans.push(...parsed.spans);
      outside = parsed.outside;
    } else {
      const parsed = codeSpans(line);
      spans.push(...parsed.spans);
      outside = parsed.outside;
    }
    for (const { name, pattern } of MARKUP)
      if (pattern.test(outside)) problems.push(`${name} outside code: ${JSON.stringify(outside)}`);
  }
  return { spans, problems };
}

/** The value as one line, the way it is shown (line breaks become spaces). */
const shown = (value: string) => value.replace(/\r\n|\r|\n/g, " ");

describe("Markdown written from run values", () => {
  it.for(HOSTILE)("a hostile value (%j) renders as text in the step summary", (value, { expect }) => {
    const { spans, problems } = inspect(runSummary(hostileResult(value)));
    expect(problems).toEqual([]);
    // Nothing was dropped: the item, the provider's message and the warning show in full.
    expect(spans).toContain(shown(value));
    expect(spans).toContain(shown(`Auth0 said: ${value}`));
  });

  it.for(HOSTILE)("a hostile value (%j) renders as text in the pull-request comment", (value, { expect }) => {
    const body = commentBody(hostileResult(value), "https://sponson.example.com/dashboard/runs/x?y=1");
    expect(body.startsWith("<!-- sponson-edge: environment=preview -->\n")).toBe(true);
    const { spans, problems } = inspect(body);
    expect(problems).toEqual([]);
    expect(spans).toContain(shown(`run-${value}`));
  });

  it.for(HOSTILE)("a hostile refusal (%j) renders as text", (value, { expect }) => {
    const markdown = refusedSummary("apply", `preview/${value}`, { code: value, message: value } as never);
    const { spans, problems } = inspect(markdown);
    expect(problems).toEqual([]);
    expect(spans).toContain(shown(value));
  });

  it("plain words stay plain: the table a reader expects", ({ expect }) => {
    const result = hostileResult("x");
    result.lines = [
      {
        id: "callback",
        op: "auth0.callbackUrl",
        key: "https://pr-1.preview.example.com/cb",
        diff: "create",
        result: "created",
        parent: null,
      },
    ];
    result.run.status = "succeeded";
    delete result.run.error;
    expect(runSummary(result)).toContain(
      "| callback | `auth0.callbackUrl` | create | created | `https://pr-1.preview.example.com/cb` |  |",
    );
  });

  it("an environment name cannot close the comment's marker", ({ expect }) => {
    const result = hostileResult("x");
    result.run.environment = "preview --> <img src=x>";
    const first = commentBody(result, "https://sponson.example.com/").split("\n")[0];
    expect(first).toMatch(/^<!-- sponson-edge: environment=[^<>]* -->$/);
  });
});
