/**
 * The built renderer's files as web mode and the Electron shell's parapush:// scheme serve them:
 * one lookup from an untrusted URL path to a file inside the renderer folder, and one table of
 * content types. Never throws: a path that cannot be decoded is a bad request, anything that is
 * not a regular file inside the folder is not found.
 */
import { statSync } from 'node:fs';
import path from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** The console's entry page; the folder root ('/') means this file. */
export const ENTRY_PAGE = '/index.html';

export type RendererFile =
  | { kind: 'file'; file: string; contentType: string }
  | { kind: 'bad-request'; reason: string }
  | { kind: 'not-found' };

/**
 * The file a URL path (as the client sent it, percent-encoded) names inside `rendererDir`, an
 * absolute path. Encoded separators and dots ('..%2f') are decoded before the containment check,
 * so they cannot climb out of the folder either.
 */
export function rendererFile(rendererDir: string, pathname: string): RendererFile {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname === '/' ? ENTRY_PAGE : pathname);
  } catch {
    return { kind: 'bad-request', reason: 'the path is not valid percent-encoded UTF-8' };
  }
  // fs calls throw on a NUL byte rather than report a missing file.
  if (relative.includes('\0')) return { kind: 'bad-request', reason: 'the path contains a NUL byte' };
  const file = path.resolve(rendererDir, `.${relative}`);
  if (!file.startsWith(rendererDir + path.sep) || !isRegularFile(file)) return { kind: 'not-found' };
  return {
    kind: 'file',
    file,
    contentType: contentTypes[path.extname(file)] ?? 'application/octet-stream',
  };
}

function isRegularFile(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    // EACCES, ENAMETOOLONG, ELOOP...: the client named something it cannot have.
    return false;
  }
}
