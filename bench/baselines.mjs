// The alternatives a CI job would otherwise use for a lease, each measured on loopback:
// Redis SET NX PX + compare-and-delete, etcd's lock (v3 HTTP gateway), a git-ref CAS lock.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function have(cmd) {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function waitFor(check, what, ms = 60_000) {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {}
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A minimal RESP client: one command at a time, replies parsed just enough for SET/EVAL. */
export class Resp {
  #sock;
  #buf = "";
  #waiting = [];
  static connect(port) {
    return new Promise((resolve, reject) => {
      const r = new Resp();
      r.#sock = net.connect(port, "127.0.0.1", () => resolve(r)).on("error", reject);
      r.#sock.setNoDelay(true);
      r.#sock.on("data", (d) => {
        r.#buf += d.toString("utf8");
        const nl = r.#buf.indexOf("\r\n");
        if (nl < 0) return;
        let end = nl + 2;
        if (r.#buf[0] === "$" && Number(r.#buf.slice(1, nl)) >= 0) end = r.#buf.indexOf("\r\n", nl + 2) + 2;
        const line = r.#buf.slice(0, end);
        r.#buf = r.#buf.slice(end);
        r.#waiting.shift()?.(line);
      });
    });
  }
  cmd(...args) {
    const msg = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join("")}`;
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#sock.write(msg);
    });
  }
  close() {
    this.#sock.end();
  }
}

export const CAS_DELETE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export async function startRedis(children) {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  children.push(child);
  await waitFor(async () => {
    const r = await Resp.connect(port);
    r.close();
    return true;
  }, "redis-server");
  return port;
}

export async function startEtcd(children) {
  const [client, peer] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), "sponson-etcd-"));
  const child = spawn(
    "etcd",
    [
      "--data-dir",
      dir,
      "--listen-client-urls",
      `http://127.0.0.1:${client}`,
      "--advertise-client-urls",
      `http://127.0.0.1:${client}`,
      "--listen-peer-urls",
      `http://127.0.0.1:${peer}`,
      "--initial-advertise-peer-urls",
      `http://127.0.0.1:${peer}`,
      "--initial-cluster",
      `default=http://127.0.0.1:${peer}`,
    ],
    { stdio: "ignore" },
  );
  children.push(child);
  const base = `http://127.0.0.1:${client}`;
  await waitFor(async () => (await fetch(`${base}/health`)).ok, "etcd");
  return base;
}

export function gitRepo() {
  const dir = mkdtempSync(join(tmpdir(), "sponson-git-lock-"));
  execFileSync("git", ["init", "--bare", "-q", dir]);
  const oid = execFileSync("git", ["-C", dir, "hash-object", "-w", "--stdin"], { input: "lease\n" })
    .toString()
    .trim();
  return { dir, oid };
}
