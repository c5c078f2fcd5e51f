import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

/**
 * Tests that hold real-time deadlines (the virtual lab's 100 ms motion-capture limit, watchdogs,
 * a browser driving the console) run last and one file at a time: on two cores, sharing the CPU
 * with other test files would starve their event loops and trip the very safety stops they test.
 */
const realtime = [
  'test/virtual-lab/supervised-run.test.ts',
  'test/virtual-lab/plan-before-arming.test.ts',
  'test/virtual-lab/mocap-freeze.test.ts',
  'test/virtual-lab/scene-guard-faults.test.ts',
  'test/virtual-lab/robot-state-faults.test.ts',
  'test/virtual-lab/mocap-order-faults.test.ts',
  'test/virtual-lab/mocap-spoofing.test.ts',
  'test/mocap/spoofing-loopback.test.ts',
  'test/virtual-lab/start-order-faults.test.ts',
  'test/virtual-lab/headless-run-crash.test.ts',
  'test/virtual-lab/gripper-lab.test.ts',
  'test/virtual-lab/flat-pusher-lab.test.ts',
  'test/virtual-lab/controller-profiles.test.ts',
  'test/virtual-lab/motive-commissioning.test.ts',
  'test/virtual-lab/controller-commissioning.test.ts',
  'test/robot/blocking-stop.test.ts',
  'test/conformance/blocking-stopl.test.ts',
  'test/cli/lab-check.test.ts',
  'test/cli/run-command.test.ts',
  'test/session/one-recorder.test.ts',
  'test/session/foxglove-live.test.ts',
  'test/session/foxglove-logs.test.ts',
  'test/shell/shell-run.test.ts',
  'test/console/lab-run-controller.test.ts',
  'test/robot/jog.test.ts',
  'test/console/robot-recovery.test.ts',
  'test/console/recovery-target-lab.test.ts',
  'test/console/virtual-lab-thread.test.ts',
  'test/console/ur5-status-busy-thread.test.ts',
  'test/robot/ur5-connection.test.ts',
  'test/lab-link/safety-thread.test.ts',
  'test/bench/safety.test.ts',
  // A one-node Slurm cluster whose jobs take both cores; its test cancels a task between two runs.
  'test/experiments/slurm.test.ts',
  'test/console/program-restart.test.ts',
  'test/virtual-lab/lab-thread-stall.test.ts',
  'test/virtual-lab/world-mocap.test.ts',
  'test/virtual-lab/probe-run.test.ts',
  'test/bench/dry-run-soak.test.ts',
  'test/e2e/**/*.test.ts',
];

/**
 * Benchmarks run whole: minutes on two cores, kept out of `npm test` (`npm run test:bench`). The
 * quick bench sanity check in test/bench/bench-sanity.test.ts stays in the unit run.
 */
const benchmarks = ['test/bench/full/**/*.test.ts'];

export default defineConfig({
  plugins: [svelte()],
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ['test/vitest-setup/fast-check-seed.ts', 'test/vitest-setup/jsdom-match-media.ts'],
    // Gripper ranges measured by tests go to a scratch folder, never the user's data folder.
    env: { PARAPUSH_GRIPPER_DIR: path.join(os.tmpdir(), 'parapush-test-grippers') },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...realtime, ...benchmarks],
          environment: 'node',
          // Two cores: keep file-level parallelism modest so worker-pool tests get CPU.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'realtime',
          include: realtime,
          environment: 'node',
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'bench',
          include: benchmarks,
          environment: 'node',
          // The dry-runs bench holds the virtual lab's real-time deadlines: one file at a time.
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
