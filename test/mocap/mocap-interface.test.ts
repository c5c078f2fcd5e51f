/**
 * The mocap interface chosen from the route to Motive (mocap/mocap-interface.ts): shown, and an
 * interface set by hand off that route refused with its fix. Interface tables are written out;
 * the one probe of a real route goes to 127.0.0.1 and sends nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  interfaceOf,
  judgeMocapInterface,
  MOCAP_INTERFACE_FIX,
  mocapInterface,
  ROUTED_MOCAP_FIX,
  type InterfaceTable,
} from '../../src-main/mocap/mocap-interface';

const v4 = (address: string, netmask: string) => ({ address, netmask, family: 'IPv4' });
/** A lab PC with two network cards: one to the robot, one to the Motive PC. */
const labPc: InterfaceTable = {
  lo: [v4('127.0.0.1', '255.0.0.0')],
  robot0: [v4('192.168.1.2', '255.255.255.0')],
  mocap0: [v4('10.0.1.2', '255.255.255.0')],
};

describe('the mocap interface, from the route to Motive', () => {
  it('finds the interface holding an address, exactly or by its subnet', () => {
    expect(interfaceOf('10.0.1.2', labPc)?.name).toBe('mocap0');
    expect(interfaceOf('127.0.0.2', labPc)?.name).toBe('lo');
    expect(interfaceOf('172.16.0.1', labPc)).toBeUndefined();
  });

  it("takes the route's interface and names it", () => {
    const i = judgeMocapInterface('10.0.1.5', '10.0.1.2', undefined, labPc);
    expect(i).toEqual({
      server: '10.0.1.5',
      local: '10.0.1.2',
      name: 'mocap0',
      text: 'mocap0 (10.0.1.2/24), the route to Motive at 10.0.1.5',
    });
  });

  it('refuses an interface set by hand when Motive is reached only on the second card', () => {
    const i = judgeMocapInterface('10.0.1.5', '10.0.1.2', '192.168.1.2', labPc);
    expect(i.problem).toBe(
      'Motive at 10.0.1.5 is reached only through mocap0 (10.0.1.2/24), but the mocap interface is set to 192.168.1.2 on robot0: multicast joined there hears no frame',
    );
    expect(i.fix).toBe(MOCAP_INTERFACE_FIX('10.0.1.2'));
  });

  it('refuses an address no interface has', () => {
    const i = judgeMocapInterface('10.0.1.5', '10.0.1.2', '10.9.9.9', labPc);
    expect(i.problem).toContain('an address no network interface of this PC has');
  });

  it('refuses a Motive reached only through a router', () => {
    const i = judgeMocapInterface('172.20.0.7', '192.168.1.2', undefined, labPc);
    expect(i.problem).toContain('not on the network of any interface of this PC');
    expect(i.fix).toBe(ROUTED_MOCAP_FIX);
  });

  it('asks the kernel for the route to a loopback Motive (sending nothing) and keeps --mocap-local 127.0.0.1', async () => {
    const table: InterfaceTable = { lo: [v4('127.0.0.1', '255.0.0.0')] };
    expect(await mocapInterface('127.0.0.1', '127.0.0.1', 1510, table)).toEqual({
      server: '127.0.0.1',
      local: '127.0.0.1',
      name: 'lo',
      text: 'lo (127.0.0.1/8), the route to Motive at 127.0.0.1',
    });
    expect((await mocapInterface('127.0.0.1', '0.0.0.0', 1510, table)).problem).toBeUndefined();
    // 127.0.0.2 is still loopback: on lo through 127.0.0.1/8.
    expect((await mocapInterface('127.0.0.1', '127.0.0.2', 1510, table)).problem).toBeUndefined();
  });
});
