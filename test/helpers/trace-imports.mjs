// Loaded with `node --import` ahead of a program: appends the URL of every module the program
// imports, one a line, to the file $PARAPUSH_TRACE_IMPORTS names. The hook runs on the loader
// thread, so it writes synchronously: the list is complete when the program exits.
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.PARAPUSH_TRACE_IMPORTS, resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
