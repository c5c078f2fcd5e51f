// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installAbortKeys } from '../../src-renderer/src/lib/abort-keys';

let uninstall: () => void = () => {};
afterEach(() => {
  uninstall();
  document.body.innerHTML = '';
});

function press(target: Element, key: string, code = key) {
  const event = new KeyboardEvent('keydown', { key, code, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return event;
}

describe('Esc and Space abort from anywhere', () => {
  it('aborts on Esc and Space from the page and from a button, and Space does not press the button', () => {
    const abort = vi.fn();
    uninstall = installAbortKeys(window, abort);
    document.body.innerHTML = '<button id="start">Start</button>';
    const button = document.getElementById('start')!;
    const clicked = vi.fn();
    button.addEventListener('keydown', clicked);
    press(document.body, 'Escape');
    const space = press(button, ' ', 'Space');
    expect(abort.mock.calls).toEqual([['escape-key'], ['space-key']]);
    expect(space.defaultPrevented).toBe(true);
    expect(clicked).not.toHaveBeenCalled();
  });

  it('lets Space type in a text field but still aborts on Esc there', () => {
    const abort = vi.fn();
    uninstall = installAbortKeys(window, abort);
    document.body.innerHTML =
      '<input id="name" type="text" /><textarea id="notes"></textarea><input id="n" type="number" />';
    for (const id of ['name', 'notes', 'n']) {
      const field = document.getElementById(id)!;
      expect(press(field, ' ', 'Space').defaultPrevented).toBe(false);
      press(field, 'Escape');
    }
    expect(abort.mock.calls).toEqual([['escape-key'], ['escape-key'], ['escape-key']]);
  });

  it('ignores other keys and auto-repeat', () => {
    const abort = vi.fn();
    uninstall = installAbortKeys(window, abort);
    press(document.body, 'a', 'KeyA');
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', repeat: true, bubbles: true }));
    expect(abort).not.toHaveBeenCalled();
  });
});
