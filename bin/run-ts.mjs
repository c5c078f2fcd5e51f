#!/usr/bin/env node
// Runs a TypeScript entry point under tsx: `node bin/run-ts.mjs bench/index.ts args...`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

register();
const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts.mjs FILE.ts [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], entry, ...rest];
await import(pathToFileURL(path.resolve(entry)).href);
