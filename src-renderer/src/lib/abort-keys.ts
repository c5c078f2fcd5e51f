/**
 * Esc and Space abort from anywhere in the console. Space is left alone while the operator types
 * in a text field (it is a character there); Esc always aborts.
 */
export type AbortKey = 'escape-key' | 'space-key';

function isTextEntry(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).tagName !== 'string') return false;
  const el = target as HTMLElement;
  if (el.isContentEditable) return true;
  if (el.tagName === 'TEXTAREA') return true;
  if (el.tagName !== 'INPUT') return false;
  const type = (el as HTMLInputElement).type;
  return !['button', 'checkbox', 'radio', 'range', 'submit', 'reset', 'color', 'file'].includes(type);
}

export function abortKeyOf(
  event: Pick<KeyboardEvent, 'key' | 'code' | 'target' | 'repeat'>,
): AbortKey | null {
  if (event.key === 'Escape') return 'escape-key';
  if ((event.code === 'Space' || event.key === ' ') && !isTextEntry(event.target)) return 'space-key';
  return null;
}

/** Listens on the window in the capture phase, so no component can swallow the key first. */
export function installAbortKeys(win: Window, abort: (key: AbortKey) => void): () => void {
  const onKey = (event: KeyboardEvent) => {
    const key = abortKeyOf(event);
    if (!key) return;
    // Space must not also press the focused button (it could be Start).
    event.preventDefault();
    event.stopPropagation();
    if (!event.repeat) abort(key);
  };
  win.addEventListener('keydown', onKey, { capture: true });
  return () => win.removeEventListener('keydown', onKey, { capture: true });
}
