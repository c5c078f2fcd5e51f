/** NatNet message ids (the uint16 at the start of every packet). */
export const MessageId = {
  Connect: 0,
  ServerInfo: 1,
  Request: 2,
  Response: 3,
  RequestModelDef: 4,
  ModelDef: 5,
  RequestFrameOfData: 6,
  FrameOfData: 7,
  MessageString: 8,
  Disconnect: 9,
  KeepAlive: 10,
  DisconnectByTimeout: 11,
  EchoRequest: 12,
  EchoResponse: 13,
  Discovery: 14,
  UnrecognizedRequest: 100,
} as const;

export type MessageIdValue = (typeof MessageId)[keyof typeof MessageId];

/** Largest NatNet packet (header included). */
export const MAX_PACKET_BYTES = 65503;
export const HEADER_BYTES = 4;

export const DEFAULT_COMMAND_PORT = 1510;
export const DEFAULT_DATA_PORT = 1511;
export const DEFAULT_MULTICAST_GROUP = '239.255.42.99';
