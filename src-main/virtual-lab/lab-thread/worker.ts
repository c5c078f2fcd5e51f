/**
 * Entry of the virtual lab's thread (a node:worker_threads worker): runs a VirtualLab (MuJoCo
 * world, virtual UR, Robotiq and NatNet servers) off the main thread, as the real devices run on
 * machines of their own, so a busy main thread cannot delay its frames and robot states. Started
 * by lab-thread.ts; every message it receives is parsed (messages.ts) before it is acted on.
 */
import type { InputWrite } from '../virtual-ur/rtde-server';
import { VirtualLab } from '../virtual-lab';
import { enterWorkerThread } from '../../common/worker-thread';
import { toLabSchema, type FromLabSent } from './messages';

// The devices it stands for run on machines of their own: keep them ahead of this machine's load.
const { port, priority } = enterWorkerThread('the virtual lab thread');
const send = (m: FromLabSent): void => port.postMessage(m);

let lab: VirtualLab | null = null;
let forwarding = false;
const forwardInput = (w: InputWrite): void =>
  send({
    type: 'input',
    names: [...w.names],
    values: w.values.map((v) => (typeof v === 'object' ? [...v] : v)),
    receivedAt: w.receivedAt,
  });

async function answer(id: number, act: (lab: VirtualLab) => Promise<void> | void): Promise<void> {
  try {
    if (!lab) throw new Error('the virtual lab is not running');
    await act(lab);
    send({ type: 'done', id });
  } catch (err) {
    send({ type: 'refused', id, message: (err as Error).message });
  }
}

async function stop(): Promise<void> {
  const running = lab;
  lab = null;
  await running?.stop();
  send({ type: 'stopped' });
  port.close();
}

port.on('message', (raw: unknown) => {
  const parsed = toLabSchema.safeParse(raw);
  // A message this thread does not understand means the two sides disagree: end rather than guess.
  if (!parsed.success) throw new Error(`not a virtual lab message: ${parsed.error.message}`);
  const m = parsed.data;
  switch (m.type) {
    case 'start':
      if (lab) throw new Error('the virtual lab is already running');
      // A tool of a registered kind registers itself when its module is imported.
      Promise.all(m.toolModules.map((module) => import(module)))
        .then(() => VirtualLab.start(m.config))
        .then(
          (started) => {
            lab = started;
            send({ type: 'started', ports: started.ports, setup: started.setup, priority });
          },
          (err: Error) => {
            send({ type: 'failed', message: err.message });
            port.close();
          },
        );
      return;
    case 'place-objects':
      void answer(m.id, (l) => l.placeObjects());
      return;
    case 'protective-stop':
      void answer(m.id, (l) => l.ur.controller.injectProtectiveStop());
      return;
    case 'watch-input':
      if (!lab) throw new Error('the virtual lab is not running');
      if (m.on && !forwarding) lab.ur.rtde.on('input', forwardInput);
      if (!m.on) lab.ur.rtde.off('input', forwardInput);
      forwarding = m.on;
      return;
    case 'stop':
      void stop();
      return;
  }
});
