/**
 * The network interface the NatNet client listens on, chosen from the route to Motive and judged
 * before connecting. A lab PC usually has two network cards (one to the robot, one to the Motive
 * PC); multicast joined on the wrong one hears nothing, and all the operator would see is "no
 * motion-capture frame". So the interface is the one the kernel routes Motive's address through
 * (asked by connecting a UDP socket, which sends nothing), it is shown (Setup view, `parapush lab
 * check`), and an interface set by hand (`--mocap-local`, a lab file's `mocapLocal`) that is not
 * the route's is refused with its fix, as is a Motive reached only through a router (multicast does
 * not cross one unless the network is set up for it).
 */
import os from 'node:os';
import { localAddressTowards, resolveIPv4 } from './client';
import { DEFAULT_COMMAND_PORT } from './message-ids';

/** One IPv4 address of a local interface, as os.networkInterfaces() lists it. */
export interface InterfaceAddress {
  address: string;
  netmask: string;
  family: string;
  cidr?: string | null;
}

export type InterfaceTable = Record<string, readonly InterfaceAddress[] | undefined>;

/** Where the client listens, in the operator's words, and whether it can hear Motive there. */
export interface MocapInterface {
  /** Motive's IPv4 address. */
  server: string;
  /** The local address both sockets bind to. */
  local: string;
  /** The interface holding it (e.g. eth1), or undefined when none lists it. */
  name: string | undefined;
  /** In words: "eth1 (10.0.1.2/24), the route to Motive at 10.0.1.5". */
  text: string;
  problem?: string;
  fix?: string;
}

export const MOCAP_INTERFACE_FIX = (route: string): string =>
  `leave the mocap interface out (--mocap-local, the lab file's mocapLocal) so the console uses the route's, or set it to ${route}`;

export const ROUTED_MOCAP_FIX =
  "put the console PC on Motive's network (a network card with an address in the Motive PC's subnet, e.g. a direct cable or the lab switch) and set Motive's Settings > Streaming > Local Interface to that network's address";

function toInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const isLoopback = (ip: string): boolean => ip.startsWith('127.');

/** Whether `ip` is in the subnet of `a` (its address and netmask). */
function inSubnet(ip: string, a: InterfaceAddress): boolean {
  const mask = toInt(a.netmask);
  // Unsigned arithmetic: a mask of 255.255.255.255 is 2^32 - 1, beyond a signed 32-bit int.
  return Math.floor(toInt(ip) / (2 ** 32 - mask)) === Math.floor(toInt(a.address) / (2 ** 32 - mask));
}

/**
 * The interface that holds `ip`: the one listing it exactly, else the one whose subnet contains it
 * (127.0.0.2 is on lo through 127.0.0.1/8).
 */
export function interfaceOf(
  ip: string,
  table: InterfaceTable,
): { name: string; address: InterfaceAddress } | undefined {
  const all = Object.entries(table).flatMap(([name, list]) =>
    (list ?? []).filter((a) => a.family === 'IPv4').map((address) => ({ name, address })),
  );
  return all.find((e) => e.address.address === ip) ?? all.find((e) => inSubnet(ip, e.address));
}

const cidrOf = (a: InterfaceAddress): string =>
  a.cidr ?? `${a.address}/${toInt(a.netmask).toString(2).replace(/0+$/, '').length}`;

/**
 * Judges the interface for Motive at `server` (an IPv4 address) reached from `route` (the local
 * address the kernel sends from towards it), with `configured` the address set by hand, if any.
 */
export function judgeMocapInterface(
  server: string,
  route: string,
  configured: string | undefined,
  table: InterfaceTable,
): MocapInterface {
  const routeIf = interfaceOf(route, table);
  const routeWords = routeIf ? `${routeIf.name} (${cidrOf(routeIf.address)})` : route;
  const base = { server, local: configured ?? route, name: routeIf?.name };
  if (configured !== undefined) {
    const setIf = interfaceOf(configured, table);
    // A loopback address on a PC whose table does not list lo: loopback to a loopback Motive.
    if (!setIf && isLoopback(configured) && isLoopback(server))
      return { ...base, text: `${configured} (loopback), the route to Motive at ${server}` };
    if (!setIf)
      return {
        ...base,
        name: undefined,
        text: `${configured}, which no interface of this PC has`,
        problem: `the mocap interface is set to ${configured}, an address no network interface of this PC has`,
        fix: MOCAP_INTERFACE_FIX(route),
      };
    if (routeIf && setIf.name !== routeIf.name)
      return {
        ...base,
        name: setIf.name,
        text: `${setIf.name} (${configured}), not on the route to Motive at ${server}`,
        problem: `Motive at ${server} is reached only through ${routeWords}, but the mocap interface is set to ${configured} on ${setIf.name}: multicast joined there hears no frame`,
        fix: MOCAP_INTERFACE_FIX(route),
      };
  }
  const text = `${routeWords}, the route to Motive at ${server}`;
  if (!isLoopback(server) && routeIf && !inSubnet(server, routeIf.address))
    return {
      ...base,
      text,
      problem: `Motive at ${server} is not on the network of any interface of this PC (reached through a router via ${routeWords}): its multicast frames do not cross the router`,
      fix: ROUTED_MOCAP_FIX,
    };
  return { ...base, text };
}

export class MocapInterfaceError extends Error {
  override name = 'MocapInterfaceError';
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}; fix: ${fix}`);
  }
}

/**
 * The mocap interface for Motive at `host`: `localAddress` '0.0.0.0' (or none) takes the route's;
 * any other is judged against it. Sends nothing. `table` is this PC's interfaces unless given.
 */
export async function mocapInterface(
  host: string,
  localAddress: string | undefined,
  commandPort = DEFAULT_COMMAND_PORT,
  table: InterfaceTable = os.networkInterfaces(),
): Promise<MocapInterface> {
  const server = await resolveIPv4(host);
  const route = await localAddressTowards(server, commandPort);
  const configured = localAddress && localAddress !== '0.0.0.0' ? localAddress : undefined;
  return judgeMocapInterface(server, route, configured, table);
}
