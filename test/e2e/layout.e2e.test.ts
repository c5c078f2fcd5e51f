/**
 * The console's layout as an operator meets it (issue 30, finding 9), in Debian's Chromium on
 * the real core in web mode with the in-process virtual lab:
 * - the status bar keeps its height while the links come up (no wrap to several lines);
 * - the plots column never scrolls sideways, before, during and after a run, at both sizes;
 * - the outcome banner leaves the event log's lines in sight;
 * - the chart index's arrows point to where the chart is (↓ below the fold, ↑ scrolled past);
 * - the scene Library list shows the file Load loads.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleCore } from '../../src-main/console/console-core';
import type { WebServer } from '../../src-main/console/web-server';
import { haveChromium } from '../helpers/chromium';
import { openConsoleInChromium, type ConsoleInChromium } from '../helpers/e2e-console';

const sizes = [
  { width: 1280, height: 800 },
  { width: 1600, height: 1000 },
] as const;

/** The plots column and each chart in it: what is wider than its box. */
async function plotsOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const column = document.querySelector<HTMLElement>('aside.plots');
    if (!column) return ['no plots column'];
    if (column.scrollWidth > column.clientWidth)
      problems.push(`the plots column scrolls sideways: ${column.scrollWidth} > ${column.clientWidth}`);
    const box = column.getBoundingClientRect();
    for (const el of column.querySelectorAll<HTMLElement>('section.plot, canvas, .u-legend, nav, p')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > box.left + column.clientWidth + 0.5)
        problems.push(
          `${el.tagName.toLowerCase()}.${el.className} reaches ${r.right} past ${box.left + column.clientWidth}`,
        );
    }
    return problems;
  });
}

describe.skipIf(!haveChromium)('console layout (Chromium, real core, virtual lab)', () => {
  let e2e: ConsoleInChromium;
  let server: WebServer;
  let core: ConsoleCore;
  let page: Page;

  /** The row of status cells was never taller than the Abort button, whatever it showed. */
  const expectOneRow = async (when: string) => {
    const { heights, texts } = await page.evaluate(() => {
      const w = window as unknown as { cellRowHeights: number[]; cellRowTexts: string[] };
      return { heights: w.cellRowHeights, texts: w.cellRowTexts };
    });
    expect(heights.length, 'heights recorded').toBeGreaterThan(0);
    const abort = (await page.getByRole('button', { name: /ABORT/ }).boundingBox())!;
    const tallest = heights.indexOf(Math.max(...heights));
    expect(
      heights[tallest],
      `${when}: heights ${heights.join(', ')}; the tallest showed "${texts[tallest]}"`,
    ).toBeLessThanOrEqual(abort.height + 1);
  };

  const show = async (view: 'Setup' | 'Scene' | 'Planner' | 'Run' | 'Sessions') => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: view }).click();
    await page.getByRole('heading', { level: 1, name: view }).waitFor();
  };

  beforeAll(async () => {
    e2e = await openConsoleInChromium(sizes[0]);
    ({ server, core, page } = e2e);
    expect(await core.handle({ type: 'settings.preset', preset: 'isrr2019-parareal-1' })).toMatchObject({
      ok: true,
    });
    const settings = { ...core.snapshot().settings, rollouts: 4, maxExecutedActions: 1 };
    expect(await core.handle({ type: 'settings.set', settings })).toMatchObject({ ok: true });
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('keeps the status bar one row high while the links come up', async () => {
    // Every height the bar's row of cells takes from its first paint on, recorded in the page.
    await page.addInitScript(() => {
      const heights: number[] = [];
      const texts: string[] = [];
      Object.assign(window, { cellRowHeights: heights, cellRowTexts: texts });
      const watch = () => {
        const row = document.querySelector('footer[aria-label="Status"] .cells');
        if (!row) return void requestAnimationFrame(watch);
        new ResizeObserver(() => {
          heights.push(row.getBoundingClientRect().height);
          texts.push((row as HTMLElement).innerText.replace(/\s+/g, ' '));
        }).observe(row);
      };
      watch();
    });
    await page.goto(server.url);
    const connections = page.getByRole('contentinfo').getByRole('list', { name: 'Connections' });
    await expect
      .poll(() => connections.textContent(), { timeout: 30_000 })
      .toMatch(/OptiTrack: connected.*UR5: connected/);
    await expectOneRow('while the links come up');
  });

  it('shows in the scene Library the file Load loads', async () => {
    await show('Scene');
    const list = page.getByLabel('Scene file');
    await expect.poll(() => list.locator('option').count()).toBeGreaterThan(1);
    const shown = await list.evaluate((s: HTMLSelectElement) => s.options[s.selectedIndex]?.label);
    // The list starts on the scene on screen, and Load loads what it shows.
    expect(shown).toBe(core.snapshot().sceneFile);
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await expect.poll(() => core.snapshot().sceneFile).toBe(shown);
  });

  it('keeps the status bar one row high through a run, and the plots column from scrolling sideways', async () => {
    await show('Run');
    for (const size of sizes) {
      await page.setViewportSize(size);
      await page.waitForTimeout(200);
      expect(await plotsOverflow(page), `before a run at ${size.width}x${size.height}`).toEqual([]);
    }
    await page.setViewportSize(sizes[0]);
    const start = page.getByRole('button', { name: /Start dry run/ });
    await expect.poll(() => start.isDisabled(), { timeout: 60_000 }).toBe(false);
    await start.click();
    await expect
      .poll(() => page.getByTestId('run-phase').textContent(), { timeout: 120_000 })
      .toMatch(/FINISHED|FAILED|ABORTED/);
    // From the links' start-up through the run's start (STARTING, SAFETY UNKNOWN) to its end.
    await expectOneRow('through a run');
    for (const size of sizes) {
      await page.setViewportSize(size);
      await page.waitForTimeout(200);
      expect(await plotsOverflow(page), `after a run at ${size.width}x${size.height}`).toEqual([]);
    }
    await page.setViewportSize(sizes[0]);
  }, 240_000);

  it("leaves the event log's lines in sight under the outcome banner", async () => {
    await page.getByTestId('run-banner').waitFor();
    const banner = (await page.getByTestId('run-banner').boundingBox())!;
    const log = page.getByLabel('Event log');
    const heading = (await log.getByRole('heading').boundingBox())!;
    expect(heading.y + heading.height, 'the log heading ends above the banner').toBeLessThanOrEqual(banner.y);
    const lines = await log.locator('li').evaluateAll((items) =>
      items.map((li) => {
        const r = li.getBoundingClientRect();
        const ol = li.parentElement!.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, listBottom: ol.bottom };
      }),
    );
    expect(lines.length).toBeGreaterThan(0);
    // The log's own box ends where the banner's bar begins: nothing of it lies under the bar.
    expect(lines[0]!.listBottom).toBeLessThanOrEqual(banner.y);
  });

  it('points the chart index arrows to where the charts are', async () => {
    await show('Run');
    const column = page.getByRole('complementary', { name: 'Plots' });
    const button = (name: string) =>
      page.getByRole('navigation', { name: 'Charts' }).getByRole('button', { name });
    await column.evaluate((c) => (c.scrollTop = 0));
    await expect.poll(() => button('Speedup').textContent()).toBe('↓Speedup');
    await column.evaluate((c) => (c.scrollTop = c.scrollHeight));
    await expect.poll(() => button('Convergence').textContent()).toBe('↑Convergence');
    await column.evaluate((c) => (c.scrollTop = 0));
  });
});
