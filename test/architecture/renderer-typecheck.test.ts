/**
 * The renderer is type-checked as browser code (tsconfig.renderer.json: the DOM, no Node types),
 * so a renderer file that imports Node, directly or through main-process code, fails `npm run
 * typecheck`. The same target checks the whole contract, which the renderer may import, so none
 * of it may need Node either. The fixtures are checked in place of a renderer file, with the
 * renderer's own compiler options.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const fixtureFile = path.join(root, 'src-renderer/src/lib/fixture.ts');

function rendererConfig(): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.renderer.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error('tsconfig.renderer.json did not parse');
  return parsed;
}

interface Problem {
  file: string;
  code: number;
  message: string;
}

/**
 * The type errors of the renderer file `fixture` and of the files it imports among `alsoReport`
 * (relative to the repository), checked with the renderer's options. Only these files are
 * checked, not every declaration they reach, which keeps this quick.
 */
function typecheckAsRenderer(fixture: string, alsoReport: string[] = []): Problem[] {
  const { options } = rendererConfig();
  const text = readFileSync(path.join(root, 'test/fixtures/layers', fixture), 'utf8');
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  const isFixture = (file: string) => path.resolve(file) === fixtureFile;
  host.getSourceFile = (file, language, ...rest) =>
    isFixture(file)
      ? ts.createSourceFile(file, text, language)
      : getSourceFile.call(host, file, language, ...rest);
  host.fileExists = (file) => isFixture(file) || fileExists.call(host, file);
  host.readFile = (file) => (isFixture(file) ? text : readFile.call(host, file));
  const program = ts.createProgram({ rootNames: [fixtureFile], options, host });
  const checked = [fixtureFile, ...alsoReport.map((f) => path.join(root, f))].map((f) => {
    const source = program.getSourceFile(f);
    if (!source) throw new Error(`${f} is not part of the program`);
    return source;
  });
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((s) => [...program.getSyntacticDiagnostics(s), ...program.getSemanticDiagnostics(s)]),
  ].map((d) => ({
    file: d.file ? path.relative(root, d.file.fileName) : '',
    code: d.code,
    message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
  }));
}

describe('renderer typecheck', () => {
  it('checks the renderer and the whole contract as browser code: the DOM, no Node types', () => {
    const { options, fileNames, raw } = rendererConfig();
    expect(options.types).toEqual([]);
    // svelte-check reads the same config for the components (tsc skips .svelte files).
    expect((raw as { include: string[] }).include).toContain('src-renderer/src/**/*.svelte');
    expect(options.lib).toContain('lib.dom.d.ts');
    const files = fileNames.map((f) => path.relative(root, f));
    expect(files).toContain('src-renderer/src/main.ts');
    expect(files).toContain('src-shared/contract/console-api.ts');
    expect(files).toContain('src-shared/contract/scene-file.ts');
    expect(files.filter((f) => !/^src-renderer\/src\/|^src-shared\/contract\//.test(f))).toEqual([]);
  });

  it('rejects a renderer file that imports Node, directly or through main-process code', () => {
    const problems = typecheckAsRenderer('renderer-node-import.ts.txt', ['src-main/common/paths.ts']);
    const fixture = 'src-renderer/src/lib/fixture.ts';
    // No types for node:fs here, nor for Buffer ("Cannot find name 'Buffer'. Do you need to install
    // type definitions for node?").
    expect(problems).toContainEqual({
      file: fixture,
      code: 2307,
      message: expect.stringContaining("'node:fs'"),
    });
    expect(problems).toContainEqual({
      file: fixture,
      code: 2591,
      message: expect.stringContaining("'Buffer'"),
    });
    // The main-process module it imports fails in its own file.
    expect(problems).toContainEqual({
      file: 'src-main/common/paths.ts',
      code: 2307,
      message: expect.stringContaining("'node:"),
    });
  });

  it('accepts a renderer file that imports the contract and uses the DOM', () => {
    expect(typecheckAsRenderer('renderer-contract-import.ts.txt', ['src-shared/contract/scene.ts'])).toEqual(
      [],
    );
  });
});
