/** `parapush scene check FILE...` and `parapush scene schema`: validate scene files, print the JSON Schema. */
import type { Command } from 'commander';
import { endEffectorOf } from '#contract/end-effector/registry';
import { loadSceneFile } from '../../common/config-files';
import { NoSuchSceneFileError, SceneFileError, sceneJsonSchema } from '#contract/scene-file';
import { EXIT_BAD_INPUT, EXIT_FAILURE } from '../errors';

/** One line per file, so a glob of many files reads as a list and greps cleanly. */
function checkLine(file: string): { ok: boolean; line: string; missing?: boolean } {
  try {
    const s = loadSceneFile(file);
    return {
      ok: true,
      line: `${file}: ok (${s.name}: ${endEffectorOf(s).title}, ${s.sliders.length} slider(s), ${s.obstacles.length} obstacle(s))`,
    };
  } catch (err) {
    if (err instanceof NoSuchSceneFileError) return { ok: false, line: err.message, missing: true };
    if (!(err instanceof SceneFileError)) throw err;
    const problems = err.problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ');
    return { ok: false, line: `${file}: invalid scene: ${problems}` };
  }
}

export function registerSceneCommand(program: Command): void {
  const scene = program.command('scene').description('validate scene files and print their JSON Schema');
  scene
    .command('check')
    .description('validate scene files, one line each (ok, or every problem with its field path)')
    .argument('<files...>', 'scene JSON files')
    .action((files: string[]) => {
      // Every file is checked and reported, whatever fails before it (the README's own
      // `scene check resources/scenes/*.json` must list them all): one line each on stdout, in
      // argument order; only the verdict goes to stderr.
      const results = files.map(checkLine);
      for (const r of results) process.stdout.write(`${r.line}\n`);
      const failed = results.filter((r) => !r.ok).length;
      if (failed > 0) {
        process.stderr.write(`parapush: ${failed} of ${files.length} scene file(s) failed the check\n`);
        // A file that is not there is bad input (exit 2, as for every command); a scene that
        // fails the check is the check's answer (exit 1).
        process.exitCode = results.some((r) => r.missing) ? EXIT_BAD_INPUT : EXIT_FAILURE;
      }
    });
  scene
    .command('schema')
    .description('print the JSON Schema of scene files (for editors)')
    .action(() => {
      process.stdout.write(`${JSON.stringify(sceneJsonSchema(), null, 2)}\n`);
    });
}
