/**
 * Fine-model worker entry point: an Electron utility process in the app, a Node child process under
 * the CLI and tests. It compiles each scene's MuJoCo model once (cached by the scene key the main
 * process derives from the scene's content) and runs fine slices in the order they arrive.
 */
import { performance } from 'node:perf_hooks';
import { FineModel } from '#physics/fine-model';
import { ReachCulledModel } from '#physics/reach-culled-model';
import { runNoisy } from '#physics/noisy-run';
import type { State } from '#contract/state';
import type { Scene } from '#contract/scene';
import { fromWorkerSchema, toWorkerSchema, type FineJob, type FromWorker } from '#contract/worker-protocol';

interface Port {
  send(msg: FromWorker): void;
  onMessage(handler: (msg: unknown) => void): void;
}

/** Electron utility processes talk through process.parentPort; Node children through process.send. */
function connect(): Port {
  const parentPort = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
  if (parentPort) {
    return {
      send: (msg) => parentPort.postMessage(msg),
      onMessage: (h) => parentPort.on('message', (e: { data: unknown }) => h(e.data)),
    };
  }
  if (!process.send) throw new Error('fine-worker must run as a child or utility process');
  // A worker outlives nothing: when its parent goes (closed, killed, crashed) it ends too, and a
  // result finished after that is dropped instead of failing on the closed channel (EPIPE).
  process.on('disconnect', () => process.exit(0));
  return {
    send: (msg) => {
      if (process.connected) process.send!(msg);
    },
    onMessage: (h) => process.on('message', h),
  };
}

interface ParentPortLike {
  postMessage(msg: unknown): void;
  on(event: 'message', handler: (e: { data: unknown }) => void): void;
}

const port = connect();
/** A scene's model, and what steps its jobs: the model, or it with only reachable objects. */
interface SceneModel {
  fine: FineModel;
  predict: FineModel | ReachCulledModel;
}
const models = new Map<string, Promise<SceneModel>>();

async function compile(scene: Scene, toolModule: string | undefined): Promise<SceneModel> {
  // A tool of a registered kind registers itself when its module is imported.
  if (toolModule) await import(toolModule);
  const fine = await FineModel.create(scene);
  return { fine, predict: scene.fine.onlyReachable ? await ReachCulledModel.create(scene, fine) : fine };
}

async function runJob(job: FineJob): Promise<void> {
  const model = models.get(job.sceneKey);
  if (!model) throw new Error(`no scene "${job.sceneKey}" was sent to this worker`);
  const { fine, predict } = await model;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  // The subset models' steps count too: a culled job's work is theirs and the full model's.
  const work0 = { ...predict.work };
  const noise = job.noise;
  let states: State[];
  if (noise) {
    // A stochastic execution, step for step what the execution world does from a reset (TAMPC samples).
    states =
      predict instanceof ReachCulledModel
        ? predict.runNoisy(job.x, job.controls, job.dt, noise)
        : runNoisy(fine, job.x, job.controls, job.dt, noise);
  } else {
    states = [];
    let x = job.x;
    for (const u of job.controls) {
      x = predict.step(x, u, job.dt);
      states.push(x);
    }
  }
  const cpu = process.cpuUsage(cpu0);
  port.send(
    fromWorkerSchema.parse({
      type: 'result',
      result: {
        id: job.id,
        states,
        seconds: (performance.now() - t0) / 1000,
        cpu: (cpu.user + cpu.system) / 1e6,
        steps: predict.work.steps - work0.steps,
        solverIterations: predict.work.solverIterations - work0.solverIterations,
      },
    }),
  );
}

// Jobs run strictly one after another: MuJoCo data is shared per scene within this process.
let queue: Promise<void> = Promise.resolve();

port.onMessage((raw) => {
  const parsed = toWorkerSchema.safeParse(raw);
  if (!parsed.success) {
    port.send({ type: 'error', id: null, message: `malformed message: ${parsed.error.message}` });
    return;
  }
  const msg = parsed.data;
  if (msg.type === 'scene') {
    if (models.has(msg.sceneKey)) return;
    const model = compile(msg.scene, msg.toolModule);
    models.set(msg.sceneKey, model);
    // A failed compilation is reported by each job of the scene.
    model.then(
      () => port.send({ type: 'scene-ready', sceneKey: msg.sceneKey }),
      () => undefined,
    );
    return;
  }
  if (msg.type === 'forget') {
    const model = models.get(msg.sceneKey);
    models.delete(msg.sceneKey);
    // After the jobs already queued for it: the pool forgets only scenes without jobs, but a
    // batch sent just before may still be running.
    queue = queue.then(() =>
      model?.then(
        (m) => {
          if (m.predict !== m.fine) m.predict.dispose();
          m.fine.dispose();
        },
        () => undefined,
      ),
    );
    return;
  }
  for (const job of msg.jobs) {
    queue = queue.then(() =>
      runJob(job).catch((err: unknown) => port.send({ type: 'error', id: job.id, message: String(err) })),
    );
  }
});

port.send({ type: 'ready', pid: process.pid });
