/**
 * The virtual UR controller on loopback: RTDE (30004), Dashboard (29999) and script ports
 * (30002/30003) over one VirtualController of a software version (virtual-ur/profile.ts): a CB3
 * (3.x) advanced at 125 Hz or an e-Series (5.x) at 500 Hz, each with its dashboard, or a
 * PolyScope X controller (10.x, 500 Hz) without one (its `ports.dashboard` is 0: nothing listens).
 *
 * The tool's pose and velocity in the base frame are published every cycle through `onMotion`, so
 * a MuJoCo execution world can make the pusher follow the tool.
 */
import { z } from 'zod';
import { NORMAL_PRESET_FORCE_LIMIT } from '#contract/flange-load';
import { monotonicSeconds } from '../common/clock';
import { VirtualController, type MotionSample } from './virtual-ur/controller';
import { createDashboardServer } from './virtual-ur/dashboard-server';
import type { LineServer } from './virtual-ur/line-server';
import { VirtualRtdeServer } from './virtual-ur/rtde-server';
import { ScriptServer } from './virtual-ur/script-server';
import { after } from '../common/timers';
import { softwareVersionSchema } from './virtual-ur/profile';

const port = z.number().int().min(0).max(65535);

export const virtualUrOptionsSchema = z
  .object({
    host: z.literal('127.0.0.1').default('127.0.0.1').describe('loopback only'),
    ports: z
      .object({
        rtde: port.default(30004),
        dashboard: port.default(29999),
        secondary: port.default(30002),
        realtime: port.default(30003),
      })
      .strict()
      .default({ rtde: 30004, dashboard: 29999, secondary: 30002, realtime: 30003 }),
    software: softwareVersionSchema.optional(),
    frequency: z
      .union([z.literal(125), z.literal(500)])
      .optional()
      .describe("Hz: 125 = CB3, 500 = e-Series; must be the software version's when both are given"),
    remoteControl: z.boolean().default(true).describe('e-Series: Remote Control (true) or Local mode'),
    releaseTime: z.number().min(0).default(0.5).describe('s from an accepted unlock until the arm runs'),
    maxProtocolVersion: z.union([z.literal(1), z.literal(2)]).default(2),
    fieldbusOwnsLowRegisters: z.boolean().default(false),
    unlockDelay: z.number().min(0).default(5).describe('s before a protective stop may be unlocked'),
    initialPose: z.array(z.number()).length(6).optional().describe('tool pose in the base frame'),
    speedSlider: z
      .number()
      .gt(0)
      .max(1)
      .default(1)
      .describe('teach pendant speed slider, fraction (1 = 100 %)'),
    halfOpenHold: z
      .number()
      .min(0)
      .max(600)
      .default(0)
      .describe('s an RTDE session cut off by a pulled cable keeps its inputs (its TCP timeout)'),
    toolForceLimit: z
      .number()
      .positive()
      .default(NORMAL_PRESET_FORCE_LIMIT)
      .describe("N, safety configuration's tool force limit (Normal preset: 150 N)"),
  })
  .strict();

export type VirtualUrOptions = z.input<typeof virtualUrOptionsSchema>;
export type VirtualUrPorts = { rtde: number; dashboard: number; secondary: number; realtime: number };

export class VirtualUr {
  readonly controller: VirtualController;
  readonly rtde: VirtualRtdeServer;
  private readonly dashboard: LineServer;
  private readonly secondary: ScriptServer;
  private readonly realtime: ScriptServer;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  private constructor(
    private readonly options: z.infer<typeof virtualUrOptionsSchema>,
    /** Bound ports (ephemeral ports resolved). */
    public ports: VirtualUrPorts,
  ) {
    this.controller = new VirtualController({
      ...(options.software ? { software: options.software } : {}),
      ...(options.frequency ? { frequency: options.frequency } : {}),
      remoteControl: options.remoteControl,
      releaseTime: options.releaseTime,
      unlockDelay: options.unlockDelay,
      initialPose: options.initialPose as [number, number, number, number, number, number] | undefined,
      speedSlider: options.speedSlider,
      toolForceLimit: options.toolForceLimit,
    });
    this.rtde = new VirtualRtdeServer(this.controller, {
      maxProtocolVersion: options.maxProtocolVersion,
      fieldbusOwnsLowRegisters: options.fieldbusOwnsLowRegisters,
      halfOpenHold: options.halfOpenHold,
    });
    this.dashboard = createDashboardServer(this.controller);
    this.secondary = new ScriptServer(this.controller);
    this.realtime = new ScriptServer(this.controller);
  }

  /** Starts the servers and the control loop. Port 0 picks an ephemeral port (see `ports`). */
  static async start(input: VirtualUrOptions = {}): Promise<VirtualUr> {
    const options = virtualUrOptionsSchema.parse(input);
    const ur = new VirtualUr(options, { ...options.ports });
    const host = options.host;
    ur.ports = {
      rtde: await ur.rtde.listen(options.ports.rtde, host),
      dashboard: ur.controller.profile.dashboard
        ? await ur.dashboard.listen(options.ports.dashboard, host)
        : 0,
      secondary: await ur.secondary.listen(options.ports.secondary, host),
      realtime: await ur.realtime.listen(options.ports.realtime, host),
    };
    ur.startLoop();
    return ur;
  }

  get host(): string {
    return this.options.host;
  }

  /** Called every control cycle with the tool pose and velocity in the base frame. */
  onMotion(listener: (m: MotionSample) => void): () => void {
    this.controller.on('motion', listener);
    return () => this.controller.off('motion', listener);
  }

  /**
   * Runs the controller in real time: each timer callback catches up on every cycle that is due
   * (Node timers are coarser than 2 ms), and a long stall skips ahead instead of bursting.
   */
  private startLoop(): void {
    this.running = true;
    const period = 1 / this.controller.frequency;
    let next = monotonicSeconds() + period;
    const run = (): void => {
      if (!this.running) return;
      const now = monotonicSeconds();
      if (now - next > 50 * period) next = now;
      while (now >= next) {
        this.controller.tick();
        this.rtde.publish();
        next += period;
      }
      this.timer = after(Math.max(0, next - monotonicSeconds()), run);
    };
    this.timer = after(period, run);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([
      this.rtde.close(),
      this.controller.profile.dashboard ? this.dashboard.close() : undefined,
      this.secondary.close(),
      this.realtime.close(),
    ]);
  }
}
