/**
 * The live screen in Debian's Chromium, on the real core in web mode with the in-process virtual
 * lab (wired as `parapush web` wires it), at 1600 x 1000 and at 1280 x 800: every view (Setup,
 * Scene, Planner, Run, Sessions) before a dry run, during it (planner readout with a ticking
 * planning clock, chart legends with numbers, whole-number ticks on counted axes), after an Esc
 * abort (the run timer frozen at the real run time, not back at 00:00) and after a run that ends
 * on its own (its outcome on the status bar's banner line). From the start the console shows the
 * lab's scene with the lab drawn around it (scale bar, table axes, workspace, robot base,
 * motion-capture frame), the robot's safety state, and one scene status. At every stage, view and
 * size, no status text overflows its box or hides under another and nothing in the view panel is
 * cut off (bounding boxes, scrollWidth against clientWidth). The Sessions view lists the runs as
 * dry runs on the virtual lab, their outcomes in one wording. Screenshots go to
 * test-artifacts/screenshots/; with PARAPUSH_UPDATE_DOCS=1 they also refresh
 * docs/screenshots/{setup,scene,planner,run,sessions}-view-{before,during,aborted,after,playback}-{1600x1000,1280x800}.png
 * (playback: the last run played back to its end, the recording's outcome on the status bar).
 * The table view before a run is also compared pixel by pixel with its reference image in
 * test/e2e/reference/ (test/helpers/reference-images.ts; PARAPUSH_UPDATE_REFERENCES=1 rewrites it).
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleCore } from '../../src-main/console/console-core';
import type { WebServer } from '../../src-main/console/web-server';
import {
  docScreenshotsDir as docShots,
  haveChromium,
  screenshotsDir as shots,
  updateDocs,
} from '../helpers/chromium';
import { openConsoleInChromium, type ConsoleInChromium } from '../helpers/e2e-console';
import { checkAgainstReference } from '../helpers/reference-images';

const sizes = [
  { width: 1600, height: 1000 },
  { width: 1280, height: 800 },
] as const;
/** Every view, the Run view first: it is what a run is about. */
const views = ['Run', 'Setup', 'Scene', 'Planner', 'Sessions'] as const;
/**
 * A stage screenshots every view at both sizes (ten pages) on top of its run: about a minute on
 * an idle two-core machine, several when other work shares it.
 */
const STAGE_TIMEOUT = 300_000;

/**
 * Layout problems of the status bar and the planner readout, in words: a box whose text is wider
 * or taller than the box (scrollWidth > clientWidth), a text that pokes out of its cell, cells
 * that overlap each other or the Abort button, anything outside the window.
 */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (el: Element) =>
      `${el.className || el.tagName} "${(el.textContent ?? '').trim().slice(0, 60)}"`;
    const boxes = (sel: string) => [...document.querySelectorAll<HTMLElement>(sel)];
    const inside = (a: DOMRect, b: DOMRect) =>
      a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
    const overlaps = (a: DOMRect, b: DOMRect) =>
      Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
      Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
    const view = new DOMRect(0, 0, window.innerWidth, window.innerHeight);
    const footer = document.querySelector('footer[aria-label="Status"]');
    if (!footer) return ['no status bar'];
    const cells = boxes(
      'footer[aria-label="Status"] .cell, footer[aria-label="Status"] .banner, footer[aria-label="Status"] .abort, [data-testid="planner-readout"] .cell',
    );
    for (const el of cells) {
      const r = el.getBoundingClientRect();
      if (el.scrollWidth > el.clientWidth + 1)
        problems.push(`${name(el)} overflows: ${el.scrollWidth} > ${el.clientWidth}`);
      if (el.scrollHeight > el.clientHeight + 1)
        problems.push(`${name(el)} overflows down: ${el.scrollHeight} > ${el.clientHeight}`);
      if (!inside(r, view)) problems.push(`${name(el)} is outside the window`);
      // Every piece of text in the cell lies inside the cell.
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.textContent?.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        for (const t of range.getClientRects())
          if (!inside(t, r)) problems.push(`text "${n.textContent.trim()}" pokes out of ${name(el)}`);
      }
    }
    for (let i = 0; i < cells.length; i++)
      for (let j = i + 1; j < cells.length; j++) {
        const a = cells[i]!;
        const b = cells[j]!;
        if (a.contains(b) || b.contains(a)) continue;
        if (overlaps(a.getBoundingClientRect(), b.getBoundingClientRect()))
          problems.push(`${name(a)} overlaps ${name(b)}`);
      }
    return problems;
  });
}

/**
 * What the view panel cuts off: the panel scrolling sideways, a cell, line or control that reaches
 * past its right edge, or a block whose text is wider than the block (scrollWidth > clientWidth).
 */
async function panelProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()} "${(el.textContent ?? (el as HTMLInputElement).value ?? '').trim().slice(0, 50)}"`;
    const panel = document.querySelector<HTMLElement>('.console > .panel');
    if (!panel) return ['no view panel'];
    if (panel.scrollWidth > panel.clientWidth + 1)
      problems.push(`the view panel scrolls sideways: ${panel.scrollWidth} > ${panel.clientWidth}`);
    const box = panel.getBoundingClientRect();
    const right = box.left + panel.clientWidth;
    const blocks = new Set(['TD', 'TH', 'DD', 'DT', 'P', 'LI', 'LEGEND', 'H1', 'H2', 'H3', 'BUTTON']);
    for (const el of panel.querySelectorAll<HTMLElement>(
      'td, th, dt, dd, p, li, legend, h1, h2, h3, label, select, button, input, small, span, strong',
    )) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || (el as HTMLInputElement).type === 'file') continue;
      if (r.right > right + 1 || r.left < box.left - 1)
        problems.push(
          `${name(el)} is cut off by the panel (${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(box.left)}..${Math.round(right)})`,
        );
      if (blocks.has(el.tagName) && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
        problems.push(`${name(el)} overflows: ${el.scrollWidth} > ${el.clientWidth}`);
    }
    return problems;
  });
}

describe.skipIf(!haveChromium)('live screen in Chromium (web mode, real core, virtual lab)', () => {
  let e2e: ConsoleInChromium;
  let server: WebServer;
  let core: ConsoleCore;
  let page: Page;

  const show = async (view: (typeof views)[number]) => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: view }).click();
    await page.getByRole('heading', { level: 1, name: view }).waitFor();
  };

  /**
   * Every view at both sizes, with the layout
   * checked and a screenshot at each; back to the Run view at 1600 x 1000 after.
   */
  async function atBothSizes(stage: string): Promise<void> {
    for (const size of sizes) {
      await page.setViewportSize(size);
      for (const view of views) {
        await show(view);
        await page.waitForTimeout(view === 'Run' ? 300 : 150);
        const where = `${view} view ${stage} at ${size.width}x${size.height}`;
        expect(await layoutProblems(page), where).toEqual([]);
        expect(await panelProblems(page), where).toEqual([]);
        const file = `${view.toLowerCase()}-view-${stage}-${size.width}x${size.height}.png`;
        await page.screenshot({ path: path.join(shots, file) });
        if (updateDocs) copyFileSync(path.join(shots, file), path.join(docShots, file));
      }
    }
    await page.setViewportSize(sizes[0]);
    await show('Run');
  }

  const runTime = () => page.getByTestId('run-time').textContent();
  const seconds = (mmss: string | null) => {
    const [m, s] = (mmss ?? '').split(':').map(Number);
    return (m ?? NaN) * 60 + (s ?? NaN);
  };

  beforeAll(async () => {
    e2e = await openConsoleInChromium(sizes[0]);
    ({ server, core, page } = e2e);
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it(
    'shows the Run view before a run, with a favicon that needs no request',
    async () => {
      const notFound: string[] = [];
      page.on('response', (r) => {
        if (r.status() === 404) notFound.push(r.url());
      });
      // A fast planner: Parareal with 1 iteration, 4 rollouts.
      expect(await core.handle({ type: 'settings.preset', preset: 'isrr2019-parareal-1' })).toMatchObject({
        ok: true,
      });
      const settings = core.snapshot().settings;
      expect(
        await core.handle({ type: 'settings.set', settings: { ...settings, rollouts: 4 } }),
      ).toMatchObject({
        ok: true,
      });
      await page.goto(server.url);
      // From the start: the lab's scene, drawn with the lab around it, and the robot's safety state.
      const canvas = page.getByTestId('live-canvas');
      await expect
        .poll(() => canvas.getAttribute('aria-label'), { timeout: 30_000 })
        .toMatch(/^Table 1000 × 800 mm; 1 slider\(s\); 1 obstacle\(s\); goal for object; workspace/);
      expect(await canvas.getAttribute('aria-label')).toContain(
        'workspace 30 mm inside the table edges; robot base at (0, 450) mm; motion-capture origin at (400, -200) mm',
      );
      expect(await canvas.getAttribute('data-scale-mm')).toMatch(/^(10|20|50|100|200|500|1000|2000)$/);
      await expect
        .poll(() => page.getByTestId('safety').textContent(), { timeout: 30_000 })
        .toMatch(/✔\s*SAFE/);
      await show('Setup');
      await expect
        .poll(() => page.getByTestId('lab-status').textContent())
        .toMatch(/^\s*Virtual lab: virtual lab/);
      expect(await page.getByTestId('lab-status').textContent()).toContain('(virtual)');
      // One scene: the one drawn, the one the checklist judges, the one the next run uses.
      await expect
        .poll(() => page.getByTestId('scene-status').textContent())
        .toContain('isrr-obstacle: goal and objects on the table');
      const checklist = page.getByRole('table', { name: 'Pre-flight checklist' });
      expect(await checklist.getByRole('row', { name: /Scene valid/ }).textContent()).toContain(
        'isrr-obstacle: ok',
      );
      expect(await page.getByText(/No scene loaded/).count()).toBe(0);
      await expect
        .poll(() => page.getByTestId('safety-status').textContent())
        .toMatch(/SAFE: robot safety mode NORMAL/);
      await show('Scene');
      await page.getByLabel('Scene file').selectOption('isrr-obstacle.json');
      await page.getByRole('button', { name: 'Load', exact: true }).click();
      await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Run' }).click();
      const connections = page.getByRole('contentinfo').getByRole('list', { name: 'Connections' });
      await expect
        .poll(() => connections.textContent(), { timeout: 30_000 })
        .toMatch(/OptiTrack: connected.*UR5: connected/);
      expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
      // Charts without data say so inside their plotting area, and the Speedup chart is listed at
      // the top of the column even where it is below the fold.
      const charts = page.getByRole('navigation', { name: 'Charts' });
      expect(await charts.textContent()).toContain('Speedup');
      await expect.poll(() => page.locator('section.plot .empty').count()).toBe(4);
      expect(await runTime()).toBe('00:00');
      // The table view of the lab's scene before any run, pixel by pixel against its reference.
      const table = await page.getByTestId('live-canvas').screenshot();
      expect(checkAgainstReference('table-view-before-run', table).problem).toBeNull();
      await atBothSizes('before');
      expect(notFound).toEqual([]);
    },
    STAGE_TIMEOUT,
  );

  it(
    'during a dry run: the planning clock ticks, then legends show numbers and counted axes whole ticks',
    async () => {
      const activity = page.getByTestId('readout-activity');
      const phase = () => page.getByTestId('run-phase').textContent();
      const clock = (text: string | null) => Number(/(\d+\.\d) s/.exec(text ?? '')?.[1]);
      // On a loaded two-core machine a run is sometimes stopped at its start by the 100 ms
      // motion-capture limit (a safety stop, as it should be): then a new run is started.
      let live = false;
      for (let attempt = 1; attempt <= 4 && !live; attempt++) {
        const start = page.getByRole('button', { name: /Start dry run/ });
        await expect.poll(() => start.isDisabled(), { timeout: 60_000 }).toBe(false);
        const before = core.snapshot().run.startedAt;
        await start.click();
        // The last run's end is written first (its log closes): on a loaded machine that takes a while.
        await expect.poll(() => core.snapshot().run.startedAt, { timeout: 90_000 }).not.toBe(before);
        await expect.poll(phase, { timeout: 30_000 }).toMatch(/STARTING|RUNNING|FAILED|ABORTED|FINISHED/);
        // The first step is being planned: the clock ticks against the control duration (1 s).
        const planning = async () => {
          if (/FAILED|ABORTED|FINISHED/.test((await phase()) ?? '')) return 'stopped';
          const text = await activity.textContent();
          return /Planning step 0\s+\d+\.\d s\s+\/ control 1\.00 s/.test(text ?? '') ? 'planning' : 'waiting';
        };
        await expect.poll(planning, { timeout: 30_000 }).not.toBe('waiting');
        if ((await planning()) === 'stopped') continue;
        const first = await activity.textContent();
        await page.waitForTimeout(700);
        const later = await activity.textContent();
        // Unless the step arrived in between, the same clock has moved on.
        if (/Planning step 0/.test(later ?? '')) expect(clock(later)).toBeGreaterThan(clock(first));
        // The run timer counts whole seconds: within the run's first second it still reads 00:00.
        await expect.poll(async () => seconds(await runTime()), { timeout: 5000 }).toBeGreaterThan(0);
        const stepped = async () => {
          if (/FAILED|ABORTED|FINISHED/.test((await phase()) ?? '')) return 'stopped';
          const label = await page.getByTestId('live-canvas').getAttribute('aria-label');
          return label?.includes('plan step 0') ? 'stepped' : 'waiting';
        };
        await expect.poll(stepped, { timeout: 60_000 }).not.toBe('waiting');
        live = (await stepped()) === 'stepped';
      }
      expect(live, 'a dry run that got past its first step').toBe(true);
      await expect.poll(() => page.getByTestId('readout-actions').textContent()).toMatch(/^[1-9]\d* of 20$/);
      expect(await page.getByTestId('readout-cost').textContent()).toMatch(/^-?\d/);
      expect(await page.getByTestId('readout-parareal').textContent()).toBe('1 iteration');

      // Legends read the latest values, not "--", with nothing hovered.
      for (const id of ['plot-convergence', 'plot-cost', 'plot-timing']) {
        const values = page.locator(`#${id} .u-legend .u-series:not(:first-child) .u-value`);
        await expect.poll(() => values.allTextContents(), { timeout: 10_000 }).not.toContain('--');
        for (const v of await values.allTextContents()) expect(v, `${id} legend`).toMatch(/^-?\d[\d.,e+-]*$/);
      }
      // Counted axes (iterations, steps) have whole-number ticks only; one point is not on 0 to 100.
      for (const id of ['plot-convergence', 'plot-cost', 'plot-timing', 'plot-speedup']) {
        const ticks = (await page.locator(`#${id} .box`).getAttribute('data-x-ticks')) ?? '';
        expect(ticks, `${id} ticks`).toMatch(/^\d+( \d+)*$/);
        expect(
          ticks
            .split(' ')
            .map(Number)
            .every((t) => t <= 20),
          `${id} ticks ${ticks}`,
        ).toBe(true);
      }
      // Let the arm push for a moment so the view shows the executed path.
      await page.waitForTimeout(500);
      await atBothSizes('during');
    },
    STAGE_TIMEOUT,
  );

  it(
    'after an Esc abort: the timer stays at the run time, the reason on its own line',
    async () => {
      const before = seconds(await runTime());
      const wasRunning = (await page.getByTestId('run-phase').textContent())?.includes('RUNNING');
      const log = page.getByLabel('Event log').locator('li');
      const ends = () => log.filter({ hasText: /run (aborted|stopped|failure|failed) after/ }).count();
      const endsBefore = await ends();
      await page.keyboard.press('Escape');
      await expect
        .poll(() => page.getByTestId('run-phase').textContent(), { timeout: 30_000 })
        .toMatch(/ABORTED|FAILED/);
      const frozen = await runTime();
      expect(frozen).not.toBe('00:00');
      expect(seconds(frozen)).toBeGreaterThanOrEqual(Math.max(1, before));
      const banner = page.getByTestId('run-banner');
      if (wasRunning) {
        expect(await page.getByTestId('run-reason').textContent()).toBe('Aborted by operator');
        expect(await banner.textContent()).toContain('ABORTED');
      }
      expect(await banner.getAttribute('data-tone')).toBe('stop');
      // The run winds down and reports its end: the timer does not move, nor go back to 00:00.
      if (wasRunning) await expect.poll(ends, { timeout: 30_000 }).toBeGreaterThan(endsBefore);
      await page.waitForTimeout(1500);
      expect(await runTime()).toBe(frozen);
      expect(await page.getByTestId('readout-activity').getAttribute('data-kind')).toBe('none');
      await atBothSizes('aborted');
      expect(await runTime()).toBe(frozen);
    },
    STAGE_TIMEOUT,
  );

  it(
    'after a run that ends on its own: the outcome on the banner, the timer at the run time',
    async () => {
      // A run long enough to reach the goal (the README's walkthrough shows its success); on a
      // loaded machine a run can still be stopped by the 100 ms motion-capture limit or run out
      // of actions, so a second one is tried once before the stage goes on with what it has.
      const start = page.getByRole('button', { name: /Start dry run/ });
      const phase = () => page.getByTestId('run-phase').textContent();
      for (let attempt = 1; attempt <= 2; attempt++) {
        await expect.poll(() => start.isDisabled(), { timeout: 30_000 }).toBe(false);
        const before = core.snapshot().run.startedAt;
        await start.click();
        await expect.poll(() => core.snapshot().run.startedAt, { timeout: 30_000 }).not.toBe(before);
        await expect.poll(phase, { timeout: 180_000 }).toMatch(/FINISHED|FAILED|ABORTED/);
        if ((await phase())?.includes('FINISHED')) break;
      }
      const time = await runTime();
      expect(seconds(time)).toBeGreaterThan(0);
      expect(await page.getByTestId('run-reason').textContent()).toMatch(/\w/);
      // Colour by meaning: a reached goal is green, a stop red.
      const tone = await page.getByTestId('run-banner').getAttribute('data-tone');
      expect(tone).toBe((await phase())?.includes('FINISHED') ? 'done' : 'stop');
      await page.waitForTimeout(1200);
      expect(await runTime()).toBe(time);
      await atBothSizes('after');
      // The Sessions view lists this test's runs as dry runs on the virtual lab (as their logs
      // recorded it), their outcomes in the run lifecycle's words.
      await show('Sessions');
      const runs = page.getByRole('list', { name: 'Recorded sessions' }).getByRole('listitem');
      await expect
        .poll(
          async () => (await runs.count()) >= 2 && !(await runs.first().textContent())?.includes('RECORDING'),
          {
            timeout: 30_000,
          },
        )
        .toBe(true);
      for (const lab of await page.getByTestId('session-lab').allTextContents())
        expect(lab).toBe('virtual, dry run');
      for (const item of await runs.all()) {
        const outcome = await item.locator('dt:text-is("Outcome") + dd').textContent();
        expect(outcome).toMatch(/^(finished|aborted|failed)( \(.*\))?$/);
      }
      await show('Run');
    },
    STAGE_TIMEOUT + 360_000,
  );

  it(
    "during playback of the last run: the recording's outcome on the bar, its plan on the table",
    async () => {
      await show('Sessions');
      const runs = page.getByRole('list', { name: 'Recorded sessions' }).getByRole('listitem');
      await expect
        .poll(async () => !(await runs.first().textContent())?.includes('RECORDING'), { timeout: 30_000 })
        .toBe(true);
      await runs
        .first()
        .getByRole('button', { name: /Open session/ })
        .click();
      await page.getByTestId('playback-banner').waitFor();
      await page.getByRole('button', { name: '10×' }).click();
      await page.getByRole('button', { name: /Play/ }).click();
      await expect
        .poll(() => page.getByTestId('playback-mode').textContent(), { timeout: 60_000 })
        .toContain('ended');
      await expect.poll(() => page.getByTestId('recorded-outcome').textContent()).toMatch(/RECORDED RUN: \w/);
      expect(await page.getByTestId('run-phase').count()).toBe(0);
      await atBothSizes('playback');
      await show('Sessions');
      await page.getByRole('button', { name: /Close playback/ }).click();
      await expect.poll(() => page.getByTestId('playback-mode').count()).toBe(0);
      await show('Run');
    },
    STAGE_TIMEOUT,
  );

  it('keeps a long stop reason and a playback cell inside their boxes at both sizes', async () => {
    // The layout with a long supervisor message and with the PLAYBACK cell a recorded session
    // adds, checked on copies of the banner and of a cell so the live ones keep their own text.
    await page.evaluate(() => {
      const link = document.querySelector('footer[aria-label="Status"] .cell.link')!;
      const cell = link.cloneNode(true) as HTMLElement;
      cell.className = link.className.replace(/\blink\b/, 'playback');
      cell.setAttribute('data-check', 'playback');
      cell.textContent = '‖ PLAYBACK, NOT LIVE paused 12:34 / 15:00 at 0.25×';
      link.before(cell);
      const banner = document.querySelector('[data-testid="run-banner"]')!;
      const copy = banner.cloneNode(true) as HTMLElement;
      copy.removeAttribute('data-testid');
      copy.setAttribute('data-check', 'long');
      copy.querySelector('.reason')!.textContent =
        'Commanded speed 250 mm/s exceeds the limit 100 mm/s; Motion capture stale: all bodies not seen for 103 ms; Control program not running (runtime state STOPPED)';
      banner.after(copy);
    });
    for (const size of sizes) {
      await page.setViewportSize(size);
      await page.waitForTimeout(200);
      expect(await layoutProblems(page), `long reason at ${size.width}x${size.height}`).toEqual([]);
    }
    await page.setViewportSize(sizes[0]);
    await page.evaluate(() => document.querySelectorAll('[data-check]').forEach((e) => e.remove()));
  });
});
