/**
 * `parapush lab check` against the virtual lab: every check printed, each red one with its fix,
 * exit 1 when any fails; nothing moves.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { labCheck } from '../../src-main/cli/commands/lab-check';
import type { InterfaceTable } from '../../src-main/mocap/mocap-interface';
import type { VirtualLab } from '../../src-main/virtual-lab/virtual-lab';
import { labsPerTest, speedCommands } from '../helpers/virtual-lab';
import { repoRoot } from '../helpers/scenes';

const labs = labsPerTest();

async function check(
  lab: VirtualLab,
  o: { setupUpAxis?: 'y' | 'z'; mocapLocal?: string; interfaces?: InterfaceTable } = {},
): Promise<{ status: number; lines: string[] }> {
  const setup = lab.writeSetup(path.join(mkdtempSync(path.join(os.tmpdir(), 'lab-check-')), 'lab.json'));
  if (o.setupUpAxis) {
    const s = JSON.parse(readFileSync(setup, 'utf8'));
    s.mocap.upAxis = o.setupUpAxis;
    writeFileSync(setup, JSON.stringify(s));
  }
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
      ...(o.mocapLocal ? { mocapLocal: o.mocapLocal } : {}),
    },
    (line) => lines.push(line),
    o.interfaces,
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
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ok {4}Motion capture heard on the interface of the route to Motive: lo \(127\.0\.0\.1\/\d+\), the route to Motive at 127\.0\.0\.1$/,
      ),
    );
    expect(lines).toContain(
      "ok    Motive's up axis and units as the setup's: Y-up as the setup, positions in metres",
    );
    expect(status).toBe(0);
  });

  it('names Motive streaming Z-up to a Y-up setup with the Up Axis fix, exit 1', async () => {
    const lab = await labs.lab({ mocap: { multicast: false, streaming: { upAxis: 'z' } } });
    const twists = speedCommands((f) => lab.ur.rtde.on('input', f));
    const { status, lines } = await check(lab, { setupUpAxis: 'y' });
    const at = lines.findIndex((l) =>
      l.startsWith("FAIL  Motive's up axis and units as the setup's: Motive streams Z-up"),
    );
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1]).toMatch(/^ {6}fix: in Motive, Settings > Streaming > Up Axis: set Y /);
    expect(status).toBe(1);
    expect(twists).toHaveLength(0);
  });

  it('names the mocap host reachable only on a second interface with its fix, exit 1', async () => {
    const lab = await labs.lab();
    const interfaces = {
      lo: [{ address: '127.0.0.1', netmask: '255.255.255.255', family: 'IPv4' }],
      robot0: [{ address: '127.0.0.2', netmask: '255.255.255.255', family: 'IPv4' }],
    };
    const { status, lines } = await check(lab, { mocapLocal: '127.0.0.2', interfaces });
    expect(lines).toEqual([
      'FAIL  Motion capture heard on the interface of the route to Motive: Motive at 127.0.0.1 is reached only through lo (127.0.0.1/32), but the mocap interface is set to 127.0.0.2 on robot0: multicast joined there hears no frame',
      "      fix: leave the mocap interface out (--mocap-local, the lab file's mocapLocal) so the console uses the route's, or set it to 127.0.0.1",
    ]);
    expect(status).toBe(1);
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
