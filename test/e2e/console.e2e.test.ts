/**
 * End to end in Debian's Chromium against web mode: load a scene, see it drawn, start a dry run,
 * see the plan and per-iteration predictions, press Esc and see the abort reach the core and the
 * UI show "Aborted by operator". The run controller here is a scripted stand-in for the MPC loop
 * (injected through the same interface the lead will implement); everything else is the real
 * server, core and UI. Screenshots of each view go to test-artifacts/screenshots/.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlannerStep } from '../../src-main/contract/console-api';
import { ConsoleCore } from '../../src-main/console/console-core';
import { ensureRendererBuilt } from '../../src-main/console/renderer-build';
import type { AbortSource, RunController, RunSink } from '../../src-main/console/run-controller';
import { startWebServer, type WebServer } from '../../src-main/console/web-server';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const shots = path.resolve('test-artifacts/screenshots');

/** Scripted run: starts, publishes one planner step with three Parareal iterations, obeys abort. */
class ScriptedRun implements RunController {
  aborts: AbortSource[] = [];
  private sink: RunSink | null = null;
  async start(_request: unknown, sink: RunSink): Promise<void> {
    this.sink = sink;
    sink.status({ phase: 'running', safety: 'safe', armed: false });
    sink.emit({ type: 'planner-step', step: plannerStep() });
  }
  async pause(): Promise<void> {}
  abort(source: AbortSource): void {
    this.aborts.push(source);
    this.sink?.status({ phase: 'aborted', reason: 'Aborted by operator', safety: 'stopped', armed: false });
    this.sink?.emit({ type: 'supervisor', time: 1, decision: 'stop', reason: 'Aborted by operator' });
  }
}

function plannerStep(): PlannerStep {
  const start = [-0.2, 0, -0.1, 0, 0, 0, 0, 0, 0, 0];
  const at = (k: number, dx: number, dy: number) => [
    start[0]! + dx,
    dy,
    -0.1 + dx * 0.8,
    dy * (1 - k / 3),
    0,
    0,
    0,
    0,
    0,
    0,
  ];
  return {
    step: 0,
    time: 0,
    sliderIds: ['object'],
    start,
    plan: [
      [0.05, 0.03],
      [0.05, 0.03],
      [0.05, -0.02],
      [0.05, -0.03],
    ],
    controlDuration: 1,
    predictions: [0, 1, 2].map((k) => ({
      iteration: k,
      states: [1, 2, 3, 4].map((i) => at(k, 0.05 * i, 0.02 * Math.sin(i))),
    })),
    convergence: [
      { iteration: 1, translation: 0.02, rotation: 0.1 },
      { iteration: 2, translation: 0.004, rotation: 0.02 },
    ],
    costs: [3.2, 2.1, 1.7, 1.6],
    timings: { planning: 0.31, prediction: 0.25, workers: 4, theoreticalSpeedup: 2, measuredSpeedup: 1.6 },
  };
}

describe.skipIf(!haveChromium)('console in Chromium (web mode)', () => {
  let root: string;
  let server: WebServer;
  let context: BrowserContext;
  let page: Page;
  const run = new ScriptedRun();
  const cspViolations: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'parapush-e2e-'));
    mkdirSync(shots, { recursive: true });
    const rendererDir = path.join(root, 'renderer');
    await ensureRendererBuilt(rendererDir, () => {});
    const core = new ConsoleCore({ scenesDir: path.resolve('resources/scenes'), runController: run });
    server = await startWebServer({ core, rendererDir, port: 0 });
    context = await chromium.launchPersistentContext(path.join(root, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
      viewport: { width: 1600, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses the page without the token', async () => {
    const response = await page.goto(server.url.replace(/\?token=.*/, ''));
    expect(response?.status()).toBe(401);
  });

  it('loads a scene and draws it', async () => {
    await page.goto(server.url);
    await page.getByLabel('Scene file').selectOption('isrr-obstacle.json');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    const canvas = page.getByTestId('live-canvas');
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toContain('Table 1000 × 800 mm; 1 slider(s); 1 obstacle(s)');
    await page.screenshot({ path: path.join(shots, 'scene.png') });
  });

  it('shows the other views with honest states', async () => {
    for (const view of ['Setup', 'Planner', 'Sessions'] as const) {
      await page.getByRole('navigation').getByRole('button', { name: view }).click();
      await page.getByRole('heading', { name: view }).waitFor();
      await page.screenshot({ path: path.join(shots, `${view.toLowerCase()}.png`) });
    }
    await page.getByRole('navigation').getByRole('button', { name: 'Planner' }).click();
    await page.getByLabel('Preset').selectOption('isrr2019-parareal-1');
    await page.getByRole('button', { name: 'Apply preset' }).click();
    await expect.poll(() => page.getByLabel('Parareal iterations').inputValue()).toBe('1');
  });

  it('starts a dry run and draws the plan and each Parareal iteration', async () => {
    await page.getByRole('navigation').getByRole('button', { name: 'Run' }).click();
    await page.getByRole('button', { name: /Start dry run/ }).click();
    await expect.poll(() => page.getByTestId('run-phase').textContent()).toContain('RUNNING (dry run)');
    await expect
      .poll(() => page.getByTestId('live-canvas').getAttribute('aria-label'))
      .toContain('plan step 0 with 4 action(s); predictions for Parareal iteration(s) 0, 1, 2');
    await page.screenshot({ path: path.join(shots, 'run-live-view.png') });
  });

  it('aborts on Esc: the core hears it and the UI says "Aborted by operator"', async () => {
    await page.keyboard.press('Escape');
    await expect.poll(() => run.aborts).toEqual(['escape-key']);
    await expect.poll(() => page.getByTestId('run-reason').textContent()).toBe('Aborted by operator');
    await expect.poll(() => page.getByTestId('safety').textContent()).toContain('STOPPED');
    await expect
      .poll(() => page.getByLabel('Event log').textContent())
      .toContain('Abort requested by operator (Esc key)');
    await page.screenshot({ path: path.join(shots, 'aborted.png') });
  });

  it('has the server reject malformed API messages from the page', async () => {
    const reply = await page.evaluate(async (port) => {
      const token = new URLSearchParams(location.search).get('token');
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${token}`);
      await new Promise((r) => ws.addEventListener('open', r));
      const answer = new Promise<string>((r) =>
        ws.addEventListener('message', (e) => {
          if (String(e.data).includes('"rejected"')) r(String(e.data));
        }),
      );
      ws.send(JSON.stringify({ kind: 'command', id: 1, command: { type: 'run.start', mode: 'yolo' } }));
      const text = await answer;
      ws.close();
      return text;
    }, server.port);
    expect(JSON.parse(reply)).toMatchObject({
      kind: 'rejected',
      reason: expect.stringContaining('command.mode'),
    });
  });

  it('ran without content security policy violations', () => {
    expect(cspViolations).toEqual([]);
  });
});
