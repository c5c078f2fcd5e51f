/** One API, two transports: the preload bridge inside Electron, the WebSocket in a browser. */
import type { ConsoleBridge } from '#contract/console-api';
import type { ConsoleClient } from './client';
import { IpcConsoleClient } from './ipc-client';
import { WebSocketConsoleClient } from './ws-client';

export function selectClient(
  win: Window & { parapush?: ConsoleBridge },
  onRejected?: (reason: string) => void,
): ConsoleClient {
  if (win.parapush) return new IpcConsoleClient(win.parapush, onRejected);
  const token = new URLSearchParams(win.location.search).get('token') ?? '';
  const url = `ws://${win.location.host}/api?token=${encodeURIComponent(token)}`;
  return new WebSocketConsoleClient(url, onRejected);
}
