/**
 * The client side of sending a program (robot/script-connection.ts): the framing a controller
 * takes, checked before anything is sent, and a connection that waits for the controller first.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { renderControlProgram } from '../../src-main/robot/control-program';
import { frameProgram, ScriptConnection, ScriptFramingError } from '../../src-main/robot/script-connection';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe('program framing', () => {
  it('takes the shipped program as it is, ending in one newline', () => {
    const text = renderControlProgram();
    expect(frameProgram(text)).toBe(text);
    expect(frameProgram(`${text}\n\n`)).toBe(text);
  });

  it.each([
    ['a comment line before def', (t: string) => `# Parapush\n${t}`, /must start with "def name\(\):"/],
    ['a call after end', (t: string) => `${t}parapush_control()\n`, /must end with "end"/],
    [
      'an end in column 1 before the last line',
      (t: string) => t.replace('  while True:', 'end\n  while True:'),
      /"end" in column 1 before the last line/,
    ],
  ])('refuses %s', (_what, edit, message) => {
    expect(() => frameProgram(edit(renderControlProgram()))).toThrow(ScriptFramingError);
    expect(() => frameProgram(edit(renderControlProgram()))).toThrow(message);
  });
});

describe('ScriptConnection', () => {
  it('does not send to a peer that says nothing first', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    cleanup.push(() => sockets.forEach((s) => s.destroy()));
    const port = (server.address() as net.AddressInfo).port;
    await expect(ScriptConnection.open('127.0.0.1', port, 0.1)).rejects.toThrow(
      /the controller sent nothing within 0.1 s/,
    );
  });
});
