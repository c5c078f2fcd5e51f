/**
 * Supervised runs on the virtual lab with each controller profile (virtual-ur/profile.ts): a CB3
 * (3.15, 125 Hz, no Local mode) and an e-Series (5.11, 500 Hz) both complete a task through the
 * real clients; an e-Series in Local mode ignores the program, and pre-flight says so plainly.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_MODE } from '../../src-main/robot/dashboard';
import { labsPerTest, quickLabTask, runOnLab, speedCommands } from '../helpers/virtual-lab';

const task = quickLabTask();

const labs = labsPerTest();

describe('supervised runs by controller profile', () => {
  it.each([
    ['CB3', '3.15', 125],
    ['e-Series', '5.11', 500],
  ] as const)('%s %s: completes a task at %i Hz', async (_series, software, frequency) => {
    const env = await labs.labAndLink({ robot: { software, unlockDelay: 0.3 } });
    expect(env.link.robot.frequency).toBe(frequency);
    expect(env.link.identity.robot).toMatch(new RegExp(`^URSoftware ${software.replace('.', '\\.')}\\.`));
    const result = await runOnLab(env, task);
    expect(result.preflight.ok, result.reason).toBe(true);
    expect(result.end, result.reason).toEqual({ cause: 'task', result: 'success' });
  });

  it('e-Series in Local mode: the program is not sent, and the run refuses to arm saying why', async () => {
    const env = await labs.labAndLink({
      robot: { software: '5.11', remoteControl: false, unlockDelay: 0.3 },
    });
    const twists = speedCommands((f) => env.lab.ur.rtde.on('input', f));
    const result = await runOnLab(env, task);
    expect(result.end).toEqual({ cause: 'not-armed' });
    expect(result.reason).toContain(LOCAL_MODE);
    expect(env.lab.ur.controller.runtime).toBe('STOPPED');
    expect(twists).toHaveLength(0);
  });
});
