/** `parapush scene check FILE...` and `parapush scene schema`: validate scene files, print the JSON Schema. */
import type { Command } from 'commander';
import { loadSceneFile, sceneJsonSchema } from '../../contract/scene-file';

export function registerSceneCommand(program: Command): void {
  const scene = program.command('scene').description('validate scene files and print their JSON Schema');
  scene
    .command('check')
    .description('validate scene files; prints each problem with its field path')
    .argument('<files...>', 'scene JSON files')
    .action((files: string[]) => {
      for (const file of files) {
        const s = loadSceneFile(file);
        process.stdout.write(
          `${file}: ok (${s.name}: ${s.sliders.length} slider(s), ${s.obstacles.length} obstacle(s))\n`,
        );
      }
    });
  scene
    .command('schema')
    .description('print the JSON Schema of scene files (for editors)')
    .action(() => {
      process.stdout.write(`${JSON.stringify(sceneJsonSchema(), null, 2)}\n`);
    });
}
