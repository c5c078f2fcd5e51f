/**
 * The lab config file holds times in seconds: the NatNet faults' latency was once `latencyMs`, and
 * a config that still says so is refused with the field named and what to write instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLabConfig } from '../../src-main/virtual-lab/virtual-lab';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-lab-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(json: unknown): string {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

describe('lab config', () => {
  it('takes the NatNet latency in seconds', () => {
    const config = loadLabConfig(configFile({ mocap: { faults: { latency: 0.005 } } }));
    expect(config.mocap.faults?.latency).toBe(0.005);
  });

  it('refuses the old latencyMs, naming the field and its new name and unit', () => {
    const file = configFile({ mocap: { faults: { latencyMs: 5 } } });
    expect(() => loadLabConfig(file)).toThrow(
      /invalid lab config\n {2}mocap\.faults\.latencyMs: renamed: write "latency" in seconds/,
    );
  });
});
