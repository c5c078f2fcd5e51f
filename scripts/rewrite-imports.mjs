#!/usr/bin/env node
/**
 * Rewrites import specifiers after source files moved (docs/architecture.md, "Layers"): every
 * relative or aliased (#contract/..., #physics/...) specifier that no longer resolves is resolved where the importing file and its target
 * used to be, carried through the moves given, and written again, relative to the importer or,
 * for the shared folders, through their package.json "imports" alias (#contract/..., #physics/...).
 * A specifier that still resolves is left alone, so the script can run again, e.g. after a merge
 * brings files written against the old layout. Each move is OLD=NEW, a file or a folder relative
 * to the repository's root (git mv first, then this):
 *
 *   node scripts/rewrite-imports.mjs --move OLD=NEW [--move ...]            # every source file
 *   node scripts/rewrite-imports.mjs --move OLD=NEW [--move ...] FILE...    # only these
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Old path (file or folder, relative to the root) -> new path, from --move; longest prefix wins. */
const MOVES = [];
const files = [];
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg !== '--move') {
    files.push(arg);
    continue;
  }
  const move = process.argv[++i] ?? '';
  const [from, to] = move.split('=');
  if (!from || !to) {
    console.error(`--move takes OLD=NEW, not "${move}"`);
    process.exit(2);
  }
  MOVES.push([from.replace(/\/$/, ''), to.replace(/\/$/, '')]);
}

/** Shared folders imported through an alias from outside them. */
const ALIASES = [
  ['src-shared/contract/', '#contract/'],
  ['src-shared/physics/', '#physics/'],
];

/** Build configs, which Vite bundles leaving package imports to Node: no aliases (eslint.config.js). */
const NO_ALIAS = new Set(['src-renderer/vite.config.ts', 'electron.vite.config.ts', 'vitest.config.ts']);

const SOURCE = /\.(ts|mts|mjs|js|svelte)$/;
const SKIP = new Set(['node_modules', 'out', 'dist', '.git', 'test-artifacts', 'bench/results']);
const EXTENSIONS = ['', '.ts', '.svelte', '.mjs', '.js', '/index.ts'];

function mapForward(rel) {
  let best;
  for (const [from, to] of MOVES)
    if ((rel === from || rel.startsWith(`${from}/`)) && (!best || from.length > best[0].length))
      best = [from, to];
  return best ? best[1] + rel.slice(best[0].length) : rel;
}

function mapBack(rel) {
  let best;
  for (const [from, to] of MOVES)
    if ((rel === to || rel.startsWith(`${to}/`)) && (!best || to.length > best[1].length)) best = [from, to];
  return best ? best[0] + rel.slice(best[1].length) : rel;
}

/** The existing file a path without extension names (relative to the root), or undefined. */
function existing(rel) {
  for (const ext of EXTENSIONS) {
    const p = path.join(root, rel + ext);
    if (existsSync(p) && statSync(p).isFile()) return rel + ext;
  }
  return undefined;
}

/** Where the file `rel` (without extension) named before the moves is now, if it exists. */
function movedTarget(rel) {
  for (const ext of EXTENSIONS) {
    const moved = existing(mapForward(rel + ext));
    if (moved) return moved;
  }
  return undefined;
}

function walk(dir, out) {
  for (const name of readdirSync(path.join(root, dir))) {
    const rel = dir ? `${dir}/${name}` : name;
    if (SKIP.has(rel) || SKIP.has(name)) continue;
    if (statSync(path.join(root, rel)).isDirectory()) walk(rel, out);
    else if (SOURCE.test(name)) out.push(rel);
  }
  return out;
}

/** The specifier `file` should use for `target` (both relative to the root), in the style of `old`. */
function specifierFor(file, target, old) {
  const keepExt = /\.(svelte|mjs|js|json)$/.test(old) || /\.ts$/.test(old);
  const bare = keepExt ? target : target.replace(/(\/index)?\.ts$/, '');
  for (const [folder, alias] of ALIASES)
    if (bare.startsWith(folder) && !file.startsWith(folder) && !NO_ALIAS.has(file))
      return alias + bare.slice(folder.length);
  let rel = path.posix.relative(path.posix.dirname(file), bare);
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

function rewrite(file) {
  const text = readFileSync(path.join(root, file), 'utf8');
  const dir = path.posix.dirname(file);
  const oldDir = path.posix.dirname(mapBack(file));
  const pattern =
    /((?:from|import|mock|require|importActual)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*|#\w+\/[^'"]*)\2/g;
  const next = text.replace(pattern, (whole, lead, quote, spec, offset) => {
    // An import written inside a double-quoted string (a lint fixture in a test) is text, not an import.
    const before = text.slice(text.lastIndexOf('\n', offset) + 1, offset);
    if ((before.match(/"/g) ?? []).length % 2 === 1) return whole;
    // An alias names the same file from wherever it is imported.
    const alias = ALIASES.find(([, a]) => spec.startsWith(a));
    if (spec.startsWith('#') && !alias) return whole;
    const here = alias
      ? alias[0] + spec.slice(alias[1].length)
      : path.posix.normalize(path.posix.join(dir, spec));
    const there = alias ? here : path.posix.normalize(path.posix.join(oldDir, spec));
    const target = movedTarget(there) ?? existing(here);
    if (!target) return whole;
    const wanted = specifierFor(file, target, spec);
    const current = existing(here);
    // A specifier that resolves to the right file stays as written unless an alias should name it.
    if (current === target && !wanted.startsWith('#')) return whole;
    return `${lead}${quote}${wanted}${quote}`;
  });
  if (next !== text) {
    writeFileSync(path.join(root, file), next);
    return true;
  }
  return false;
}

if (files.length === 0) walk('', files);
let changed = 0;
for (const file of files)
  if (rewrite(path.relative(root, path.resolve(file)).split(path.sep).join('/'))) changed++;
console.log(`rewrote imports in ${changed} of ${files.length} files`);
