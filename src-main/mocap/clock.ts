/** The local monotonic clock every mocap timestamp is expressed on (seconds, and ns for echo). */
export function nowNs(): bigint {
  return process.hrtime.bigint();
}

export function nowSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}
