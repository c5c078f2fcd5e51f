// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PlaybackStatusInfo } from '#contract/console-api';
import PlaybackTimeline from '../../src-renderer/src/components/PlaybackTimeline.svelte';
import { parseSpeed } from '../../src-renderer/src/lib/playback-speed';

afterEach(cleanup);

const status = (patch: Partial<PlaybackStatusInfo> = {}): PlaybackStatusInfo => ({
  file: 's.mcap',
  duration: 60,
  position: 12,
  playing: false,
  speed: 1,
  ended: false,
  seeks: 1,
  ...patch,
});

function setup(patch: Partial<PlaybackStatusInfo> = {}) {
  const calls = { onPlay: vi.fn(), onPause: vi.fn(), onSeek: vi.fn(), onSpeed: vi.fn() };
  render(PlaybackTimeline, { status: status(patch), ...calls });
  return calls;
}

describe('playback speed limits', () => {
  it('accepts 0.1x to 10x, as the console API does, and nothing outside', () => {
    expect(parseSpeed('0.1')).toEqual({ speed: 0.1 });
    expect(parseSpeed('10')).toEqual({ speed: 10 });
    expect(parseSpeed('2.5×')).toEqual({ speed: 2.5 });
    for (const bad of ['0.09', '10.01', '0', '-1', 'fast', '', 'Infinity'])
      expect(parseSpeed(bad)).toHaveProperty('problem');
  });

  it('offers the range on the speed field and sends only speeds inside it', async () => {
    const { onSpeed } = setup();
    const field = screen.getByLabelText('Playback speed (×)') as HTMLInputElement;
    expect(field.min).toBe('0.1');
    expect(field.max).toBe('10');
    expect(field.value).toBe('1');
    await fireEvent.change(field, { target: { value: '20' } });
    expect(onSpeed).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toContain('between 0.1× and 10×');
    expect(field.value).toBe('1');
    await fireEvent.change(field, { target: { value: '0.05' } });
    expect(onSpeed).not.toHaveBeenCalled();
    await fireEvent.change(field, { target: { value: '10' } });
    expect(onSpeed).toHaveBeenCalledWith(10);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('has one-click speeds from 0.1x to 10x and marks the current one', async () => {
    const { onSpeed } = setup({ speed: 10 });
    const slowest = screen.getByRole('button', { name: '0.1×' });
    const fastest = screen.getByRole('button', { name: '10×' });
    expect(fastest.getAttribute('aria-pressed')).toBe('true');
    expect(slowest.getAttribute('aria-pressed')).toBe('false');
    await fireEvent.click(slowest);
    expect(onSpeed).toHaveBeenCalledWith(0.1);
  });
});

describe('playback timeline', () => {
  it('plays when paused, pauses when playing, and seeks with the slider', async () => {
    const paused = setup();
    expect(screen.getByRole('button', { name: /Pause/ })).toHaveProperty('disabled', true);
    await fireEvent.click(screen.getByRole('button', { name: /Play/ }));
    expect(paused.onPlay).toHaveBeenCalledOnce();
    const slider = screen.getByLabelText('Timeline position (s)') as HTMLInputElement;
    expect(slider.max).toBe('60');
    expect(Number(slider.value)).toBe(12);
    expect(screen.getByTestId('playback-clock').textContent).toBe('0:12 / 1:00');
    await fireEvent.input(slider, { target: { value: '30' } });
    expect(screen.getByTestId('playback-clock').textContent).toBe('0:30 / 1:00');
    await fireEvent.change(slider, { target: { value: '30' } });
    expect(paused.onSeek).toHaveBeenCalledWith(30);
    cleanup();

    const playing = setup({ playing: true });
    expect(screen.getByRole('button', { name: /Play/ })).toHaveProperty('disabled', true);
    await fireEvent.click(screen.getByRole('button', { name: /Pause/ }));
    expect(playing.onPause).toHaveBeenCalledOnce();
  });

  it('offers to play again at the end', () => {
    setup({ ended: true, position: 60 });
    expect(screen.getByRole('button', { name: /Play again/ })).toHaveProperty('disabled', false);
  });
});
