import { afterEach, describe, expect, it } from 'vitest';
import { VirtualUr, type VirtualUrOptions } from '../../src-main/virtual-lab/virtual-ur';
import { maxFrequencyOf, RtdeClient, type OutputPackage } from '../../src-main/robot/rtde/client';
import { RtdeSetupError } from '../../src-main/robot/rtde/setup-errors';

const EPHEMERAL = { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 };
const running: { stop(): Promise<void> | void }[] = [];

async function lab(options: VirtualUrOptions = {}): Promise<VirtualUr> {
  const ur = await VirtualUr.start({ ports: EPHEMERAL, ...options });
  running.push(ur);
  return ur;
}

async function client(ur: VirtualUr): Promise<RtdeClient> {
  const c = await RtdeClient.connect({ host: '127.0.0.1', port: ur.ports.rtde });
  running.push({ stop: () => c.close() });
  return c;
}

function collect(c: RtdeClient, ms: number): Promise<OutputPackage[]> {
  const got: OutputPackage[] = [];
  c.on('output', (p) => got.push(p));
  return new Promise((r) => setTimeout(() => r(got), ms));
}

afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
});

describe('RTDE client against the virtual controller', () => {
  it('negotiates v2, reads the e-Series version and streams the recipe at 500 Hz', async () => {
    const ur = await lab({ frequency: 500 });
    const c = await client(ur);
    expect(await c.negotiateProtocol()).toBe(2);
    const version = await c.controllerVersion();
    expect(version.major).toBe(5);
    expect(maxFrequencyOf(version)).toBe(500);
    const recipe = await c.setupOutputs(['timestamp', 'actual_TCP_pose', 'robot_mode', 'runtime_state'], 500);
    expect(recipe.id).toBe(1);
    expect(recipe.types).toEqual(['DOUBLE', 'VECTOR6D', 'INT32', 'UINT32']);
    await c.start();
    const packages = await collect(c, 400);
    // 400 ms at 500 Hz is 200 packages; allow a loaded machine plenty of slack.
    expect(packages.length).toBeGreaterThan(60);
    const stamps = packages.map((p) => p.values[0] as number);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! - stamps[i - 1]!).toBeCloseTo(0.002, 9);
    expect(packages[0]!.values[2]).toBe(7); // RUNNING
    await c.pause();
  });

  it('streams at a lower requested frequency', async () => {
    const ur = await lab({ frequency: 500 });
    const c = await client(ur);
    await c.negotiateProtocol();
    await c.setupOutputs(['timestamp'], 100);
    await c.start();
    const packages = await collect(c, 300);
    const stamps = packages.map((p) => p.values[0] as number);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! - stamps[i - 1]!).toBeCloseTo(0.01, 9);
  });

  it('falls back to v1 on an old controller: no recipe ids, controller rate', async () => {
    const ur = await lab({ frequency: 125, maxProtocolVersion: 1 });
    const c = await client(ur);
    expect(await c.negotiateProtocol()).toBe(1);
    const version = await c.controllerVersion();
    expect(version.major).toBe(3);
    expect(maxFrequencyOf(version)).toBe(125);
    const recipe = await c.setupOutputs(['timestamp', 'safety_mode'], 125);
    expect(recipe.id).toBeUndefined();
    const input = await c.setupInputs(['input_double_register_30']);
    await c.start();
    c.send(input, [0.25]);
    const packages = await collect(c, 300);
    expect(packages.length).toBeGreaterThan(10);
    const stamps = packages.map((p) => p.values[0] as number);
    expect(stamps[1]! - stamps[0]!).toBeCloseTo(0.008, 9);
    expect(ur.controller.registers.inputDouble[30]).toBe(0.25);
  });

  it('names every NOT_FOUND output with a likely cause', async () => {
    const ur = await lab();
    const c = await client(ur);
    await c.negotiateProtocol();
    const err = await c
      .setupOutputs(['timestamp', 'actual_TCP_posse', 'output_int_register_99'], 125)
      .catch((e) => e);
    expect(err).toBeInstanceOf(RtdeSetupError);
    expect((err as RtdeSetupError).failed.map((f) => f.name)).toEqual([
      'actual_TCP_posse',
      'output_int_register_99',
    ]);
    expect((err as Error).message).toMatch(
      /actual_TCP_posse: NOT_FOUND \(the controller does not know this output/,
    );
  });

  it('reports IN_USE for an input another client owns, and frees it when that client leaves', async () => {
    const ur = await lab();
    const first = await client(ur);
    await first.negotiateProtocol();
    await first.setupInputs(['input_int_register_24', 'input_double_register_24']);
    const second = await client(ur);
    await second.negotiateProtocol();
    const err = await second
      .setupInputs(['input_double_register_25', 'input_int_register_24'])
      .catch((e) => e);
    expect(err).toBeInstanceOf(RtdeSetupError);
    expect((err as RtdeSetupError).failed).toEqual([
      expect.objectContaining({ name: 'input_int_register_24', reason: 'IN_USE' }),
    ]);
    expect((err as Error).message).toMatch(/another RTDE client/);
    first.close();
    await new Promise((r) => setTimeout(r, 50));
    const recipe = await second.setupInputs(['input_int_register_24']);
    expect(recipe.id).toBeGreaterThan(0);
  });

  it('blames the fieldbus for IN_USE on registers 0..23', async () => {
    const ur = await lab({ fieldbusOwnsLowRegisters: true });
    const c = await client(ur);
    await c.negotiateProtocol();
    const err = await c.setupInputs(['input_int_register_3']).catch((e) => e);
    expect((err as Error).message).toMatch(
      /input_int_register_3: IN_USE \(a fieldbus \(EtherNet\/IP, PROFINET or MODBUS\)/,
    );
    await expect(c.setupInputs(['input_int_register_24'])).resolves.toMatchObject({ types: ['INT32'] });
  });

  it('writes input registers through a recipe', async () => {
    const ur = await lab();
    const c = await client(ur);
    await c.negotiateProtocol();
    await c.setupOutputs(['input_int_register_40'], 500);
    const input = await c.setupInputs(['input_int_register_40']);
    await c.start();
    c.send(input, [-123456]);
    const seen = await new Promise<number>((resolve) =>
      c.on('output', (p) => {
        if (p.values[0] === -123456) resolve(p.values[0]);
      }),
    );
    expect(seen).toBe(-123456);
  });
});
