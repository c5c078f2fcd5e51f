/**
 * The renderer build, shared by electron-vite (electron.vite.config.ts) and web mode (which
 * builds with plain Vite when out/renderer is missing). The built index.html carries the strict
 * content security policy as a meta tag, so it holds under file:// in Electron as well.
 */
import { svelte } from '@sveltejs/vite-plugin-svelte';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
// A relative path, not the #contract alias: Vite bundles its config but leaves package imports to
// Node, which cannot load the .ts file the alias names.
import { contentSecurityPolicy } from '../src-shared/contract/content-security-policy';

const here = path.dirname(fileURLToPath(import.meta.url));

function cspMetaTag(): Plugin {
  return {
    name: 'parapush:csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy({ meta: true }) },
        injectTo: 'head-prepend',
      },
    ],
  };
}

export function rendererConfig(options: { outDir?: string } = {}): UserConfig {
  return {
    root: here,
    base: './',
    plugins: [svelte(), cspMetaTag()],
    build: {
      outDir: options.outDir ?? path.resolve(here, '../out/renderer'),
      emptyOutDir: true,
      // Electron 41 ships Chromium 146; Debian's Chromium for web mode is older but ES2022-capable.
      target: 'es2022',
      rolldownOptions: { input: path.join(here, 'index.html') },
    },
  };
}

export default defineConfig(rendererConfig());
