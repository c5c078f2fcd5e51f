/**
 * The preload (sandboxed, context-isolated): exposes window.parapush with two functions and
 * nothing else. It validates every command before sending and every response and event
 * before handing it to the page; raw ipcRenderer never reaches the page.
 */
import { contextBridge, ipcRenderer } from 'electron';
import {
  ConsoleChannel,
  commandResponseSchema,
  commandSchema,
  eventSchema,
  formatIssues,
  type ConsoleBridge,
  type ConsoleEvent,
} from '#contract/console-api';

const listeners = new Set<(event: ConsoleEvent) => void>();

function deliver(raw: unknown): void {
  const parsed = eventSchema.safeParse(raw);
  if (!parsed.success) {
    console.warn(`parapush: dropped a malformed event: ${formatIssues(parsed.error)}`);
    return;
  }
  for (const listener of listeners) listener(parsed.data);
}

ipcRenderer.on(ConsoleChannel.event, (_event, raw: unknown) => deliver(raw));
ipcRenderer.on(ConsoleChannel.stream, (event) => {
  const [port] = event.ports;
  if (!port) return;
  port.onmessage = (message) => deliver(message.data);
  port.start();
});

const bridge: ConsoleBridge = {
  async invoke(command) {
    const checked = commandSchema.safeParse(command);
    if (!checked.success) return { ok: false, error: `malformed command: ${formatIssues(checked.error)}` };
    const response = commandResponseSchema.safeParse(
      await ipcRenderer.invoke(ConsoleChannel.command, checked.data),
    );
    if (!response.success) return { ok: false, error: `malformed response: ${formatIssues(response.error)}` };
    return response.data;
  },
  onEvent(listener) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};

contextBridge.exposeInMainWorld('parapush', bridge);
