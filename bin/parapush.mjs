#!/usr/bin/env node
// The CLI runs straight from the TypeScript sources (tsx), so `npx parapush` works right after
// `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src-main/cli/main.ts');
