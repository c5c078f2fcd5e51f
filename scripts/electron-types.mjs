#!/usr/bin/env node
// Electron's own types for the type check where the optional `electron` package did not install
// (its postinstall downloads the binary, which some networks block). The shell is checked against
// node_modules/electron/electron.d.ts when the package is there; otherwise tsconfig maps 'electron'
// to TYPES_FILE, which this script extracts from the package tarball of the version package-lock.json
// locks (fetched with `npm pack`, checked against the lock's integrity). Runs as `postinstall`;
// `npm run electron-types` runs it again. Never installs the package itself: `npm start` decides
// on the Electron binary, so it still serves the console to a browser where there is none.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where tsconfig*.json look for 'electron' after node_modules/electron. */
const TYPES_FILE = path.join(root, 'node_modules/.electron-types/electron.d.ts');
const PACKAGE_TYPES = path.join(root, 'node_modules/electron/electron.d.ts');
const ENTRY = 'package/electron.d.ts';

/** The electron version and integrity package-lock.json locks. */
function lockedElectron() {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const entry = lock.packages?.['node_modules/electron'];
  if (!entry?.version || !entry?.integrity) throw new Error('package-lock.json locks no electron version');
  return { version: entry.version, integrity: entry.integrity };
}

/** The named file's bytes in an uncompressed tar archive (ustar headers of 512 bytes). */
function fileInTar(tar, name) {
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start, length) => header.toString('utf8', start, start + length).replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const entryName = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    if (entryName === name) return tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

function extractTypes() {
  const { version, integrity } = lockedElectron();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-electron-types-'));
  try {
    // --ignore-scripts: only the tarball is wanted, never Electron's binary download.
    const out = execFileSync(
      'npm',
      ['pack', `electron@${version}`, '--pack-destination', dir, '--json', '--ignore-scripts'],
      {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        shell: process.platform === 'win32',
      },
    );
    const [packed] = JSON.parse(out);
    const tarball = readFileSync(path.join(dir, packed.filename));
    const [algorithm, expected] = integrity.split(/-(.*)/s);
    const actual = createHash(algorithm).update(tarball).digest('base64');
    if (actual !== expected)
      throw new Error(`electron@${version}'s tarball does not match package-lock.json's integrity`);
    const types = fileInTar(gunzipSync(tarball), ENTRY);
    if (!types) throw new Error(`electron@${version}'s tarball has no ${ENTRY}`);
    mkdirSync(path.dirname(TYPES_FILE), { recursive: true });
    writeFileSync(TYPES_FILE, types);
    return version;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (existsSync(PACKAGE_TYPES)) process.exit(0);
try {
  const version = extractTypes();
  console.log(
    `parapush: Electron ${version}'s types extracted for the type check (the electron package is not installed)`,
  );
} catch (err) {
  console.error(`parapush: could not get Electron's types: ${err.message}`);
  console.error(
    "  The shell cannot be type-checked until they are there: run 'npm run electron-types' again.",
  );
  // An install is still usable without them (web mode); a direct run says it failed.
  process.exit(process.env.npm_lifecycle_event === 'postinstall' ? 0 : 1);
}
