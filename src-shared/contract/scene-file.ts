/**
 * Validating scene files: one place that turns parsed JSON into a valid Scene or a precise error.
 * Reading them from disk is Node's business (common/config-files.ts); the contract stays importable
 * by the renderer.
 */
import { z } from 'zod';
import { sceneSchema, type Scene } from './scene';

export class SceneFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: { path: string; message: string }[],
    message = `${file}: invalid scene\n${problems.map((p) => `  ${p.path || '(root)'}: ${p.message}`).join('\n')}`,
  ) {
    super(message);
    this.name = 'SceneFileError';
  }
}

/**
 * The path names no file. Said plainly: "invalid scene ... ENOENT" sends the user looking for a
 * bad field. Still a SceneFileError, so every caller that reports scene problems reports this too.
 */
export class NoSuchSceneFileError extends SceneFileError {
  constructor(file: string) {
    super(file, [{ path: '', message: 'no such file' }], `no such file: ${file}`);
    this.name = 'NoSuchSceneFileError';
  }
}

/** Formats a zod issue path the way a person reads it: sliders[0].shape.radius. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

export function problemsOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => {
    const path = formatIssuePath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const prefix = path ? `${path}.` : '';
      return {
        path: issue.keys.map((k) => prefix + k).join(', '),
        message: `unknown field (${issue.message})`,
      };
    }
    return { path, message: issue.message };
  });
}

/** Validates an already-parsed JSON value as a scene; `file` names the source in errors. */
export function parseScene(value: unknown, file = '<scene>'): Scene {
  const result = sceneSchema.safeParse(value);
  if (!result.success) throw new SceneFileError(file, problemsOf(result.error));
  return result.data;
}

/** JSON Schema of the scene file, for editors (written to resources/schemas/scene.schema.json). */
export function sceneJsonSchema(): object {
  return z.toJSONSchema(sceneSchema, { io: 'input', unrepresentable: 'any' });
}
