/**
 * Every pointer into the documentation resolves, so a section that moves cannot leave a reader at a
 * dead end: each relative Markdown link of the README, CONTRIBUTING.md and docs/ names a file that
 * exists (and, with `#anchor`, one of its headings); and each citation by name — `docs/design.md,
 * "Lease protocol"`, `(README, "Try it")` — in the docs, the sources, the tests and the examples
 * names a heading or a bold run-in title of that document (CONTRIBUTING.md, "Commits and
 * comments": comments cite docs/design.md sections by name).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SKIP = new Set(["node_modules", ".git", ".wrangler", "dist", "test-artifacts", "results", "fixtures"]);
const CITING = /\.(ts|tsx|mts|mjs|js|md|toml|ya?ml)$/;

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = dir === "." ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return filesUnder(path, pattern);
    return pattern.test(entry.name) ? [path] : [];
  });
}

const MARKDOWN = [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  "packages/cli/README.md",
  ...filesUnder("docs", /\.md$/),
];

/** Markdown without its fenced code blocks and inline code spans, where nothing is a link. */
function prose(text: string): string {
  return text.replaceAll(/^```[\s\S]*?^```/gm, "").replaceAll(/`[^`\n]*`/g, "");
}

/** A heading's anchor as GitHub makes it: lowercase, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replaceAll(" ", "-");
}

/** The anchors of a Markdown text's headings, with GitHub's `-1`, `-2` for repeats. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replaceAll(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** `file: link` for each relative link (or image) of `file` whose target or anchor does not exist. */
function brokenLinks(file: string, text: string, read: (path: string) => string | null): string[] {
  const broken: string[] = [];
  for (const m of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const resolved = path === "" ? file : posix.normalize(posix.join(posix.dirname(file), path));
    const content = read(resolved);
    if (content === null) broken.push(`${file}: ${target}`);
    else if (anchor !== undefined && resolved.endsWith(".md") && !anchors(content).has(anchor))
      broken.push(`${file}: ${target}`);
  }
  return broken;
}

/** What a document can be cited by: its headings (numbering and code marks dropped) and run-in titles. */
function titles(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^#{1,6}\s+(?:\d+\.\s+)?(.+?)\s*$/gm))
    out.push((m[1] as string).replaceAll("`", ""));
  for (const m of text.matchAll(/\*\*([^*\n]+?)\.?\*\*|(?:^|\s)_([^_\n]+?)_/gm))
    out.push((m[1] ?? m[2] ?? "").replaceAll("`", ""));
  return out;
}

/** Whether `name` names a section of a document with these titles. */
function citable(name: string, known: string[]): boolean {
  const wanted = name.replaceAll("`", "");
  return known.some((t) => t === wanted || t.startsWith(wanted) || wanted.startsWith(`${t}:`));
}

const CITATION =
  /\b(README(?:\.md)?|CONTRIBUTING\.md|docs\/[a-z-]+\.md)\b[,:]?\s+(?:\*\s+|\/\/\s+|#\s+)?"([A-Za-z`](?:[^"\n]|\n\s*(?:\*|\/\/|#)?\s*){0,100}?)"/g;

/** `file: doc "name"` for each citation in `text` whose document lacks a section of that name. */
function brokenCitations(file: string, text: string, read: (path: string) => string | null): string[] {
  const broken: string[] = [];
  for (const m of text.matchAll(CITATION)) {
    const doc = (m[1] as string).startsWith("README") ? "README.md" : (m[1] as string);
    const name = (m[2] as string).replaceAll(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, " ");
    const content = read(doc);
    if (content === null || !citable(name, titles(content))) broken.push(`${file}: ${doc} "${name}"`);
  }
  return broken;
}

const cache = new Map<string, string | null>();
function readRepo(path: string): string | null {
  if (!cache.has(path)) {
    const full = join(ROOT, path);
    const inside = !relative(ROOT, full).startsWith("..");
    cache.set(path, inside && existsSync(full) ? readFileSync(full, "utf8") : null);
  }
  return cache.get(path) ?? null;
}

describe("the documentation's pointers", () => {
  it("every relative link in the README, CONTRIBUTING.md and docs/ resolves, anchors included", () => {
    expect(MARKDOWN.length).toBeGreaterThan(10);
    expect(MARKDOWN.flatMap((f) => brokenLinks(f, readRepo(f) ?? "", readRepo))).toEqual([]);
  });

  it("every citation of a document's section by name names one of its headings", () => {
    // This file's control cites made-up documents on purpose.
    const files = filesUnder(".", CITING).filter((f) => f !== "test/repo/doc-links.test.ts");
    expect(files).toEqual(expect.arrayContaining(["README.md", "workers/app.ts", "docs/design.md"]));
    const found = files.flatMap((f) => brokenCitations(f, readRepo(f) ?? "", readRepo));
    expect(found).toEqual([]);
  });

  it("control: a missing file, a missing anchor and a missing section are each found", () => {
    const docs: Record<string, string> = {
      "docs/a.md": "# A\n\n## Lease protocol\n\n**Fencing around a write.** text\n",
    };
    const read = (path: string) => docs[path] ?? null;
    const text = [
      "[ok](a.md#lease-protocol) [gone](b.md) [bad anchor](a.md#leases) `[code](c.md)`",
      '(docs/a.md, "Lease protocol") (docs/a.md, "Fencing around a write") (docs/a.md, "Holds")',
      '(docs/b.md, "Anything") docs/a.md "Lease protocol: holds"',
    ].join("\n");
    expect(brokenLinks("docs/x.md", text, read)).toEqual(["docs/x.md: b.md", "docs/x.md: a.md#leases"]);
    expect(brokenCitations("docs/x.md", text, read)).toEqual([
      'docs/x.md: docs/a.md "Holds"',
      'docs/x.md: docs/b.md "Anything"',
    ]);
  });

  it("control: anchors follow GitHub's slugs, repeats numbered", () => {
    expect(slug("Problem codes and `retriable`")).toBe("problem-codes-and-retriable");
    expect(slug("8. Keyless connections (the service as an OIDC issuer)")).toBe(
      "8-keyless-connections-the-service-as-an-oidc-issuer",
    );
    expect([...anchors("# Tests\n## Tests\n## A run's answer\n")]).toEqual([
      "tests",
      "tests-1",
      "a-runs-answer",
    ]);
  });
});
