/**
 * A real one-node Slurm cluster on this machine for a test: munged with its own key and socket,
 * slurmctld and slurmd from Debian's slurm-wlm on a generated slurm.conf (this machine as the one
 * node, 2 CPUs), all state, spool and logs in a temporary folder. Nothing of the system's own
 * Slurm or munge setup is read or changed; stop() cancels every job and ends the daemons.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const programs = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scancel', 'sinfo'];

/** Why no cluster can start here, or null when one can. */
export function slurmUnavailable(): string | null {
  const missing = programs.filter((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status !== 0);
  if (missing.length > 0)
    return `Slurm is not installed (${missing.join(', ')} missing; .ci/run installs slurm-wlm and munge)`;
  if (process.getuid?.() !== 0) return 'slurmd starts jobs as their user, which takes root (CI runs as root)';
  return null;
}

export interface SlurmCluster {
  /** The environment Slurm's commands need to reach this cluster (SLURM_CONF). */
  env: { SLURM_CONF: string };
  dir: string;
  /** Runs a Slurm client command on this cluster; returns its stdout. */
  run(command: string, ...args: string[]): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitFor(what: string, ok: () => boolean, timeout: number, logs: () => string): Promise<void> {
  const end = Date.now() + timeout * 1000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what} within ${timeout} s\n${logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function slurmConf(dir: string, host: string, ports: [number, number], socket: string): string {
  return [
    'ClusterName=parapush-test',
    `SlurmctldHost=${host}(127.0.0.1)`,
    `SlurmctldPort=${ports[0]}`,
    `SlurmdPort=${ports[1]}`,
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    `AuthInfo=socket=${socket}`,
    'CredType=cred/munge',
    `StateSaveLocation=${dir}/state`,
    `SlurmdSpoolDir=${dir}/spool`,
    `SlurmctldPidFile=${dir}/slurmctld.pid`,
    `SlurmdPidFile=${dir}/slurmd.pid`,
    `SlurmctldLogFile=${dir}/log/slurmctld.log`,
    `SlurmdLogFile=${dir}/log/slurmd.log`,
    'MailProg=/bin/true',
    // No cgroups: the test changes nothing of the machine's process hierarchy.
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    'MpiDefault=none',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_CPU',
    'ReturnToService=2',
    // A cancelled job's processes get SIGTERM, then SIGKILL after this many seconds.
    'KillWait=5',
    'NodeName=parapush-node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN',
    'PartitionName=test Nodes=parapush-node Default=YES MaxTime=INFINITE State=UP',
    '',
  ].join('\n');
}

export async function startSlurmCluster(): Promise<SlurmCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-slurm-'));
  // munged wants its socket's folders searchable by every user (the socket is how they reach it).
  chmodSync(dir, 0o711);
  for (const sub of ['munge', 'state', 'spool', 'log']) mkdirSync(path.join(dir, sub), { mode: 0o711 });
  const key = path.join(dir, 'munge', 'munge.key');
  writeFileSync(key, randomBytes(128), { mode: 0o600 });
  const socket = path.join(dir, 'munge', 'munge.socket');
  const conf = path.join(dir, 'slurm.conf');
  const env = { SLURM_CONF: conf };
  const daemons: ChildProcess[] = [];
  const logs = (): string =>
    ['munged.log', 'slurmctld.log', 'slurmd.log', 'daemons.out']
      .map((f) => path.join(dir, 'log', f))
      .filter(existsSync)
      .map((f) => `--- ${f} ---\n${readFileSync(f, 'utf8').split('\n').slice(-15).join('\n')}`)
      .join('\n');
  const daemonOut = path.join(dir, 'log', 'daemons.out');
  const start = (program: string, args: string[]): void => {
    const child = spawn(program, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (chunk: Buffer): void => writeFileSync(daemonOut, chunk, { flag: 'a' });
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    daemons.push(child);
  };
  const run = (command: string, ...args: string[]): string =>
    execFileSync(command, args, { env: { ...process.env, ...env }, encoding: 'utf8' });

  const stop = async (): Promise<void> => {
    if (daemons.some((d) => d.exitCode === null && d.signalCode === null)) {
      try {
        const jobs = run('squeue', '--noheader', '--format=%A').split('\n').filter(Boolean);
        if (jobs.length > 0) run('scancel', ...jobs);
        await waitFor(
          'jobs still running after scancel',
          () => run('squeue', '--noheader').trim() === '',
          20_000,
          logs,
        );
      } catch {
        // The controller is not answering: its daemons end below all the same.
      }
    }
    // slurmd, then slurmctld, then munged: each by the process this helper started.
    for (const d of [...daemons].reverse()) {
      if (d.exitCode !== null || d.signalCode !== null) continue;
      const ended = new Promise((resolve) => d.once('exit', resolve));
      d.kill('SIGTERM');
      const timer = setTimeout(() => d.kill('SIGKILL'), 10_000);
      await ended;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    start('munged', [
      '--foreground',
      `--key-file=${key}`,
      `--socket=${socket}`,
      `--pid-file=${path.join(dir, 'munge', 'munged.pid')}`,
      `--log-file=${path.join(dir, 'log', 'munged.log')}`,
      `--seed-file=${path.join(dir, 'munge', 'munged.seed')}`,
    ]);
    await waitFor('munged did not open its socket', () => existsSync(socket), 15_000, logs);
    const host = os.hostname().split('.')[0]!;
    writeFileSync(conf, slurmConf(dir, host, [await freePort(), await freePort()], socket));
    start('slurmctld', ['-D', '-f', conf]);
    start('slurmd', ['-D', '-f', conf, '-N', 'parapush-node']);
    await waitFor(
      'the node did not come up idle',
      () =>
        spawnSync('sinfo', ['--noheader', '--format=%T'], {
          env: { ...process.env, ...env },
          encoding: 'utf8',
        }).stdout.trim() === 'idle',
      30_000,
      logs,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { env, dir, run, stop };
}
