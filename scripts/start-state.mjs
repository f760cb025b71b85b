// Where a running `npm start` listens (.wrangler/start.json, written by scripts/start.mjs), and the
// one rule for finding the local instance that `npm run webhook` and the `sponson` CLI share:
// $PORT on loopback, else the port this checkout's running `npm start` was given, else :8787.
// Node's own modules only: the CLI bundles this file.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const START_DIR = ".wrangler";
export const START_STATE = join(START_DIR, "start.json");
export const DEFAULT_LOCAL_URL = "http://127.0.0.1:8787";

/** Where this start listens; removed when it stops. */
export function writeStartState(port) {
  mkdirSync(START_DIR, { recursive: true });
  writeFileSync(
    START_STATE,
    `${JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: process.pid })}\n`,
  );
}

export function removeStartState() {
  rmSync(START_STATE, { force: true });
}

/**
 * The URL of a running `npm start` in the checkout at `dir`, if its state file names a live
 * process; a file a crashed start left behind names a dead one and is ignored.
 */
export function runningStartUrl(dir = process.cwd()) {
  const path = join(dir, START_STATE);
  if (!existsSync(path)) return undefined;
  try {
    const { url, pid } = JSON.parse(readFileSync(path, "utf8"));
    process.kill(pid, 0);
    return typeof url === "string" ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The local instance, when no URL is given: `http://127.0.0.1:$PORT` as `npm start` takes PORT,
 * else this checkout's running `npm start`, else the default port. `source` says which, for
 * messages ("found in .wrangler/start.json").
 */
export function localInstance(env = process.env, dir = process.cwd()) {
  if (env.PORT) return { url: `http://127.0.0.1:${env.PORT}`, source: "PORT" };
  const running = runningStartUrl(dir);
  if (running !== undefined) return { url: running, source: START_STATE };
  return { url: DEFAULT_LOCAL_URL, source: "default" };
}
