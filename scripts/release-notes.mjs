// The GitHub release's notes (.github/workflows/release.yml): the CHANGELOG.md section of one
// version, without its heading, so the release says what the changelog says and nothing else.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const USAGE = `Usage: node scripts/release-notes.mjs <version>

Prints the CHANGELOG.md section "## [<version>]" (without its heading) to stdout, as the release
workflow's notes. Exits 1 when the changelog has no such section or it is empty.
`;

/** The body of `## [version]` in a Keep a Changelog text, trimmed; null when there is none. */
export function releaseNotes(changelog, version) {
  const lines = changelog.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`## [${version}]`));
  if (start === -1) return null;
  const rest = lines.slice(start + 1);
  // The section ends at the next version's heading, or at the compare links.
  const end = rest.findIndex((line) => line.startsWith("## [") || /^\[[^\]]+\]: /.test(line));
  const body = (end === -1 ? rest : rest.slice(0, end)).join("\n").trim();
  return body === "" ? null : body;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [version] = process.argv.slice(2);
  if (version === "--help" || version === "-h") {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (version === undefined) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const notes = releaseNotes(readFileSync(new URL("../CHANGELOG.md", import.meta.url), "utf8"), version);
  if (notes === null) {
    process.stderr.write(`release-notes: CHANGELOG.md has no section "## [${version}]" with entries\n`);
    process.exit(1);
  }
  process.stdout.write(`${notes}\n`);
}
