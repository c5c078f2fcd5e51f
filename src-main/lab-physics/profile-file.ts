/** Physics profile files: read and checked (a bad field named with its path), and log hashes for provenance. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { physicsProfileSchema, PhysicsProfileError, type PhysicsProfile } from '#contract/physics-profile';
import { formatIssuePath } from '#contract/scene-file';

export function loadPhysicsProfile(file: string): PhysicsProfile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PhysicsProfileError(`${file}: not a JSON physics profile: ${(err as Error).message}`);
  }
  const parsed = physicsProfileSchema.safeParse(json);
  if (!parsed.success)
    throw new PhysicsProfileError(
      `${file}: invalid physics profile\n${parsed.error.issues.map((i) => `  ${formatIssuePath(i.path) || '(root)'}: ${i.message}`).join('\n')}`,
    );
  return parsed.data;
}

export function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}
