#!/usr/bin/env node
// `npm start`: build the console and open it in Electron (`npm start -- --dev` for electron-vite's
// hot-reloading dev mode). When Electron is not installed (its binary download can be blocked),
// say so plainly and serve the same console to a browser instead (web mode: it prints the URL and
// opens the default browser where there is one).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));

/** The Electron executable, or why there is none. */
function findElectron() {
  let pkgDir;
  try {
    pkgDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { problem: 'the electron package is not installed (it is an optional dependency)' };
  }
  const pathFile = path.join(pkgDir, 'path.txt');
  const exe = existsSync(pathFile) ? path.join(pkgDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null;
  if (!exe || !existsSync(exe))
    return { problem: 'the electron package is installed but its binary was never downloaded' };
  return { exe };
}

function run(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
    child.on('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
    child.on('error', (err) => {
      console.error(`parapush: cannot run ${command}: ${err.message}`);
      resolve(1);
    });
  });
}

/** Serves the console to a browser (web mode), passing on the options it takes (--port, --lab...). */
async function serveWeb() {
  const options = process.argv.slice(2).filter((a) => a !== '--dev' && a !== '--web');
  return run(process.execPath, [path.join(root, 'bin', 'parapush.mjs'), 'web', '--open', ...options]);
}

// `npm start -- --web`: the browser console even where Electron could run.
if (process.argv.includes('--web')) process.exit(await serveWeb());

const electron = findElectron();
if (!electron.exe) {
  console.error(`parapush: cannot open the desktop console: ${electron.problem}.`);
  console.error('  Serving the same console to a browser instead (web mode, 127.0.0.1 only).');
  console.error(
    '  For the desktop console, install Electron where its download is allowed: npm install electron',
  );
  process.exit(await serveWeb());
}

const electronVite = path.join(
  path.dirname(require.resolve('electron-vite/package.json')),
  'bin',
  'electron-vite.js',
);
// The virtual lab is the default; the core picks a configured real lab from the settings.
if (process.argv.includes('--dev')) {
  process.exit(await run(process.execPath, [electronVite, 'dev']));
}
const built = await run(process.execPath, [electronVite, 'build']);
if (built !== 0) process.exit(built);
process.exit(await run(electron.exe, [root]));
