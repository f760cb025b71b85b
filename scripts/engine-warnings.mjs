// npm's EBADENGINE warnings on a fresh clone (scripts/ensure-installed.mjs). npm compares each
// package's `engines.node` with the Node that runs npm itself, and on a machine whose Node is older
// than the project's that is the wrong Node: `npm start`, `npm test` and every script run on the
// project's own Node, the `node` devDependency, which `npm ci` installs. A warning that Node
// satisfies is noise, about a hundred lines of it on Node 20; each is counted and said in one line,
// naming the packages. A warning it does not satisfy (or one this cannot read) is npm's, as npm
// printed it. Node's own modules only: it runs before anything is installed.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The project's own Node: the `node` devDependency when it is an exact version, else null. */
export function pinnedNode(dir) {
  try {
    const version = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).devDependencies?.node;
    return typeof version === "string" && /^\d+\.\d+\.\d+$/.test(version) ? version : null;
  } catch {
    return null;
  }
}

const parse = (v) => {
  const m = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(v);
  return m ? m.slice(1).map((p) => (p === undefined || p === "x" || p === "*" ? null : Number(p))) : null;
};
const compare = (a, b) => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/** One comparator (`>=22.12.0`, `^20.19.0`, `~18.1`, `22.x`); null when it cannot be read. */
function comparator(version, token) {
  const m = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(token);
  const want = m && parse(m[2]);
  if (!want) return null;
  const c = compare(version, want);
  const bound = want.indexOf(null);
  const upper = (i) => [...want.slice(0, i), (want[i] ?? 0) + 1, 0, 0].slice(0, 3);
  switch (m[1] ?? "=") {
    case ">=":
      return c >= 0;
    case ">":
      return c > 0;
    case "<=":
      return c <= 0;
    case "<":
      return c < 0;
    case "^":
      return c >= 0 && compare(version, upper(want[0] === 0 ? 1 : 0)) < 0;
    case "~":
      return c >= 0 && compare(version, upper(want[1] === null ? 0 : 1)) < 0;
    default:
      return bound === -1 ? c === 0 : compare(version, want) >= 0 && compare(version, upper(bound - 1)) < 0;
  }
}

/** Whether `version` (x.y.z) satisfies an npm range of `||` sets of comparators; null when unreadable. */
export function satisfies(version, range) {
  const v = parse(version);
  if (!v) return null;
  let any = false;
  for (const set of range.split("||")) {
    const tokens = set
      .trim()
      .replace(/([<>=^~]+)\s+/g, "$1")
      .split(/\s+/);
    let all = true;
    for (const token of tokens) {
      const ok = token === "" || token === "*" ? true : comparator(v, token);
      if (ok === null) return null;
      all &&= ok;
    }
    any ||= all;
  }
  return any;
}

const BLOCK_START = /^npm warn EBADENGINE Unsupported engine \{$/;
const BLOCK_END = /^npm warn EBADENGINE \}$/;

/**
 * A filter of npm's stderr lines: `push(line)` returns the lines to print now (a block is held until
 * it ends, then dropped or printed whole); `summary()` is the one line for the dropped blocks.
 */
export function engineWarningFilter(pinned) {
  const dropped = [];
  let block = null;
  let running = null;
  return {
    push(line) {
      if (block === null && !BLOCK_START.test(line)) return [line];
      block = [...(block ?? []), line];
      if (!BLOCK_END.test(line)) return [];
      const text = block.join("\n");
      block = null;
      const pkg = /package: '([^']+)'/.exec(text)?.[1];
      const node = /required: \{ node: '([^']+)' \}/.exec(text)?.[1];
      const current = /current: \{ node: '([^']+)'/.exec(text)?.[1];
      if (!pinned || !pkg || !node || satisfies(pinned, node) !== true) return text.split("\n");
      dropped.push(pkg.replace(/@[^@]*$/, ""));
      running ??= current;
      return [];
    },
    /** Whatever a block cut short left unprinted, then the summary (or nothing). */
    end() {
      const rest = block ?? [];
      block = null;
      if (dropped.length === 0) return rest;
      const names = dropped.length > 4 ? [...dropped.slice(0, 4), "…"] : dropped;
      return [
        ...rest,
        `setup: ${dropped.length} package${dropped.length === 1 ? "" : "s"} (${names.join(", ")}) require a newer Node than this machine's ${running ?? "Node"}, which only runs npm here: the scripts run on the project's own Node ${pinned} (the devDependency node), which they accept`,
      ];
    },
  };
}
