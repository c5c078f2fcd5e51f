/**
 * `parapush lab check` against the virtual lab: every check printed, each red one with its fix,
 * exit 1 when any fails; nothing moves.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { labCheck } from '../../src-main/cli/commands/lab-check';
import type { VirtualLab } from '../../src-main/virtual-lab/virtual-lab';
import { labsPerTest, speedCommands } from '../helpers/virtual-lab';
import { repoRoot } from '../helpers/scenes';

const labs = labsPerTest();

async function check(lab: VirtualLab): Promise<{ status: number; lines: string[] }> {
  const setup = lab.writeSetup(path.join(mkdtempSync(path.join(os.tmpdir(), 'lab-check-')), 'lab.json'));
  const lines: string[] = [];
  const { status } = await labCheck(
    {
      robot: '127.0.0.1',
      mocap: '127.0.0.1',
      scene: path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
      setup,
      rtdePort: String(lab.ports.rtde),
      scriptPort: String(lab.ports.secondary),
      dashboardPort: String(lab.ports.dashboard),
      gripperPort: String(lab.ports.gripper),
      natnetPort: String(lab.ports.natnetCommand),
    },
    (line) => lines.push(line),
  );
  return { status, lines };
}

describe('parapush lab check', () => {
  it('passes a well set-up lab: every check ok, exit 0', async () => {
    const lab = await labs.lab();
    const { status, lines } = await check(lab);
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(lines.some((l) => l.startsWith('ok    Speed slider at 100 %'))).toBe(true);
    expect(lines.some((l) => l.startsWith("ok    Workspace within the UR5's reach"))).toBe(true);
    expect(
      lines.some((l) => l.startsWith("ok    Objects pushable within the controller's force limit")),
    ).toBe(true);
    expect(status).toBe(0);
  });

  it('names the speed slider at 50 % with its fix, exit 1, and moves nothing', async () => {
    const lab = await labs.lab({ robot: { unlockDelay: 0.3, speedSlider: 0.5 } });
    const twists = speedCommands((f) => lab.ur.rtde.on('input', f));
    const { status, lines } = await check(lab);
    const at = lines.findIndex((l) => l.startsWith('FAIL  Speed slider at 100 %: speed scaling 50 %'));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1]).toBe('      fix: set the speed slider on the teach pendant to 100 %');
    expect(status).toBe(1);
    expect(twists).toHaveLength(0);
  });
});
