/**
 * Errors of recipe setup that name the variable and its likely cause, so that the operator knows
 * whether to update the controller, free a fieldbus or close another client.
 */
import type { SetupSlot } from './messages';

export interface FailedVariable {
  name: string;
  reason: 'NOT_FOUND' | 'IN_USE';
  likelyCause: string;
}

const INPUT_REGISTER = /^input_(?:int|double)_register_(\d+)$/;

export function likelyCause(
  name: string,
  reason: 'NOT_FOUND' | 'IN_USE',
  direction: 'output' | 'input',
): string {
  if (reason === 'NOT_FOUND') {
    return /register_(2[4-9]|3\d|4[0-7])$/.test(name)
      ? 'registers 24..47 need PolyScope 3.9 (CB3) or 5.3 (e-Series) or newer; update the controller'
      : `the controller does not know this ${direction}: a typo, or a variable added in a newer controller version`;
  }
  const m = INPUT_REGISTER.exec(name);
  const index = m?.[1] === undefined ? undefined : Number(m[1]);
  if (index !== undefined && index < 24) {
    return 'a fieldbus (EtherNet/IP, PROFINET or MODBUS) owns registers 0..23 when it is enabled; use registers 24..47 or disable the fieldbus adapter in the installation';
  }
  return 'another RTDE client (a second console, a URCap, or a stale connection) already writes this input; close it';
}

export class RtdeSetupError extends Error {
  override name = 'RtdeSetupError';
  constructor(
    readonly direction: 'output' | 'input',
    readonly failed: FailedVariable[],
    detail?: string,
  ) {
    super(
      failed.length > 0
        ? `RTDE ${direction} setup failed:\n${failed.map((f) => `  ${f.name}: ${f.reason} (${f.likelyCause})`).join('\n')}`
        : `RTDE ${direction} setup failed${detail ? `: ${detail}` : ''}`,
    );
  }
}

/** The variables a setup reply refused, with their likely causes. */
export function failedVariables(
  names: readonly string[],
  types: readonly SetupSlot[],
  direction: 'output' | 'input',
): FailedVariable[] {
  const out: FailedVariable[] = [];
  types.forEach((t, i) => {
    if (t === 'NOT_FOUND' || t === 'IN_USE') {
      const name = names[i] ?? `#${i}`;
      out.push({ name, reason: t, likelyCause: likelyCause(name, t, direction) });
    }
  });
  return out;
}
