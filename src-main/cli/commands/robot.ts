/**
 * `parapush robot recover`: unlock a protective stop and restart the control program, after the
 * operator has inspected its cause. It needs --confirm, the command-line form of the console's
 * operator confirmation; nothing is armed afterwards (a run arms itself after its checks).
 */
import type { Command } from 'commander';
import { DashboardClient } from '../../robot/dashboard';
import { Ur5Connection } from '../../robot/ur5-connection';
import { recoverRobotFromProtectiveStop, robotRecoveryPorts } from '../../safety/recovery';
import { UsageError } from '../errors';
import { optionalPort } from '../lab-run';

interface RecoverOptions {
  robot: string;
  confirm?: boolean;
  rtdePort?: string;
  scriptPort?: string;
  dashboardPort?: string;
}

export function registerRobotCommand(program: Command): void {
  const robot = program.command('robot').description('operations on the UR controller');
  robot
    .command('recover')
    .description(
      'unlock a protective stop and restart the control program (inspect the cause of the stop first)',
    )
    .requiredOption('--robot <host>', 'UR controller address')
    .option('--confirm', 'the operator has inspected the cause of the stop and the arm may be unlocked')
    .option('--rtde-port <port>')
    .option('--script-port <port>', 'URScript port the control program is sent to (30002)')
    .option('--dashboard-port <port>')
    .action(async (opts: RecoverOptions) => {
      if (!opts.confirm) {
        throw new UsageError(
          'inspect the cause of the protective stop, clear it, then run again with --confirm',
        );
      }
      const rtdePort = optionalPort('--rtde-port', opts.rtdePort);
      const scriptPort = optionalPort('--script-port', opts.scriptPort);
      const log = (line: string): void => void process.stderr.write(`${line}\n`);
      // The program is sent only after the unlock: a protective stop halts it anyway.
      const ur = await Ur5Connection.connect({
        host: opts.robot,
        sendProgramOnConnect: false,
        reconnect: false,
        ...(rtdePort !== undefined ? { rtdePort } : {}),
        ...(scriptPort !== undefined ? { scriptPort } : {}),
      });
      let dashboard: DashboardClient | undefined;
      try {
        dashboard = await DashboardClient.connect(
          opts.robot,
          optionalPort('--dashboard-port', opts.dashboardPort),
        );
        const state = await ur.waitForState(() => true);
        log(`robot ${opts.robot}: safety mode ${state.safetyMode}`);
        if (state.safetyMode !== 'PROTECTIVE_STOP') {
          log('there is no protective stop to recover from: nothing done');
          process.exitCode = 1;
          return;
        }
        log('unlocking the protective stop (the controller allows it 5 s after the stop) ...');
        await recoverRobotFromProtectiveStop(state.safetyMode, robotRecoveryPorts(ur, dashboard), true);
        log('protective stop unlocked, control program playing; the next run arms after its checks');
      } finally {
        dashboard?.close();
        await ur.disconnect();
      }
    });
}
