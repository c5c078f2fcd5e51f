/**
 * The experiment plots as a reader sees them: success.svg and task-time.svg from a generated
 * report, opened in Debian's Chromium. Every text element must lie inside the SVG's viewport
 * (a viewer clips what lies outside: titles were cut at 210 px) and tick labels must read as
 * plain numbers (a task-time tick once read "1.00e-9"). The records are fixed, so each plot is
 * also compared pixel by pixel with its reference image in test/e2e/reference/
 * (test/helpers/reference-images.ts; PARAPUSH_UPDATE_REFERENCES=1 rewrites them). Screenshots go
 * to test-artifacts/screenshots/ for a look by eye.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../src-main/experiments/report';
import type { RunRecord } from '../../src-main/experiments/run-record';
import { chromiumOptions, haveChromium, screenshotsDir as shots } from '../helpers/chromium';
import { checkAgainstReference, updateReferences } from '../helpers/reference-images';
import { runRecord } from '../helpers/tiny-task';

/** The plots read only each run's model, outcome and task time. */
const record = (model: string, scene: number, success: boolean, taskTime: number): RunRecord =>
  runRecord(model, scene, success ? 'success' : 'failure', taskTime, 'isrr-obstacle');

/** Long model names, and a model with no successful run (no task time: the case of the e-9 tick). */
const models = ['coarse', 'parareal:1', 'parareal:2@learned/uampc', 'fine/tampc'];
const records = [
  ...[0, 1, 2].map((s) => record('coarse', s, false, 30)),
  ...[0, 1, 2].map((s) => record('parareal:1', s, s > 0, 40 + 7.3 * s)),
  ...[0, 1, 2].map((s) => record('parareal:2@learned/uampc', s, true, 52.5 + 3.1 * s)),
  ...[0, 1, 2].map((s) => record('fine/tampc', s, s !== 1, 61 + 0.7 * s)),
];
/** Only the task-time plot of a report where nothing succeeded. */
const failures = models.map((m, s) => record(m, s, false, 20));

interface TextBox {
  text: string;
  cls: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

describe.skipIf(!haveChromium)('experiment plots in Chromium', () => {
  let root: string;
  let browser: Browser;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'parapush-plots-'));
    mkdirSync(shots, { recursive: true });
    writeReport(path.join(root, 'mixed'), 'isrr-obstacle', records, models);
    writeReport(path.join(root, 'failed'), 'isrr-obstacle', failures, models);
    browser = await chromium.launch(chromiumOptions);
  });

  afterAll(async () => {
    await browser?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /**
   * The SVG's screenshot, its viewport and every text element's rendered box, in the same (CSS
   * pixel) frame.
   */
  async function render(
    file: string,
    shot: string,
  ): Promise<{ png: Buffer; viewport: DOMRect; texts: TextBox[] }> {
    const page = await browser.newPage();
    try {
      await page.goto(`file://${file}`);
      const png = await page.locator('svg').screenshot({ path: path.join(shots, `${shot}.png`) });
      const boxes = await page.evaluate(() => {
        const svg = document.documentElement;
        const texts = [...svg.querySelectorAll('text')].map((t) => {
          const r = t.getBoundingClientRect();
          const cls = t.getAttribute('class') ?? '';
          return {
            text: t.textContent ?? '',
            cls,
            left: r.left,
            top: r.top,
            right: r.right,
            bottom: r.bottom,
          };
        });
        return { viewport: svg.getBoundingClientRect().toJSON() as DOMRect, texts };
      });
      return { png, ...boxes };
    } finally {
      await page.close();
    }
  }

  const plots = [
    ['mixed', 'success.svg'],
    ['mixed', 'task-time.svg'],
    ['failed', 'task-time.svg'],
  ] as const;

  it.each(plots)(
    '%s/%s: every text inside the viewport, ticks plain numbers, drawn as its reference',
    async (dir, name) => {
      const shot = `experiment-${dir}-${name.replace('.svg', '')}`;
      const { png, viewport, texts } = await render(path.join(root, dir, name), shot);
      expect(checkAgainstReference(shot, png).problem).toBeNull();
      expect(texts.some((t) => t.cls === 'title')).toBe(true);
      for (const t of texts) {
        // Half a pixel of slack for anti-aliased glyph edges.
        expect(t.left, `"${t.text}" left`).toBeGreaterThanOrEqual(viewport.left - 0.5);
        expect(t.top, `"${t.text}" top`).toBeGreaterThanOrEqual(viewport.top - 0.5);
        expect(t.right, `"${t.text}" right`).toBeLessThanOrEqual(viewport.right + 0.5);
        expect(t.bottom, `"${t.text}" bottom`).toBeLessThanOrEqual(viewport.bottom + 0.5);
      }
      const labels = texts.filter((t) => t.cls === 'bar-label');
      expect(labels.map((t) => t.text)).toEqual(models);
      for (let i = 1; i < labels.length; i++) expect(labels[i]!.left).toBeGreaterThan(labels[i - 1]!.right);
      const ticks = texts.filter((t) => t.cls === 'tick').map((t) => t.text);
      expect(ticks.length).toBeGreaterThanOrEqual(3);
      for (const tick of ticks) expect(tick).toMatch(/^\d+(\.\d+)?$/);
      expect(ticks.join(' ')).not.toMatch(/e-/);
    },
  );

  it.skipIf(updateReferences)('tells another plot of the same size from a reference', async () => {
    // The success plot, against the task-time plot of a report where nothing succeeded.
    const { png } = await render(path.join(root, 'mixed', 'success.svg'), 'experiment-success-vs-failed');
    expect(checkAgainstReference('experiment-failed-task-time', png).problem).toMatch(
      /pixels differ from the reference/,
    );
  });
});
