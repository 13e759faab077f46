// @overlay-companion/guac — the Guacamole protocol codec shared by the gateway and the bridge:
// streaming parser, encoder, instruction streams over sockets, and guacd handshake helpers.

export { GuacStatus, GuacProtocolError, GUAC_PROTOCOL_VERSION } from './status.js';
export type { GuacStatusCode } from './status.js';
export {
  codePointLength,
  encodeElement,
  encodeInstruction,
  encodeInstructionUtf16,
} from './encoder.js';
export { GuacParser, DEFAULT_PARSER_LIMITS } from './parser.js';
export type { GuacInstruction, LengthUnit, ParserLimits, ParserOptions } from './parser.js';
export { GuacConnection, errorFromInstruction } from './connection.js';
export type { GuacConnectionEvents } from './connection.js';
export { clientHandshake, mapConnectArgs, buildConnectValues } from './handshake.js';
export type {
  ClientHandshakeInfo,
  ClientHandshakeOptions,
  ClientHandshakeResult,
} from './handshake.js';
export {
  DELIVERY_OPCODE,
  DELIVERY_OUTCOMES,
  deliveryAnswer,
  deliveryRequestId,
} from './delivery.js';
export type { DeliveryOutcome } from './delivery.js';
export {
  ATTENTION_LEVELS,
  ATTENTION_OPCODE,
  GLANCE_FRAME_INTERVAL_MS,
  PASSIVE_FRAME_INTERVAL_MS,
  PASSIVE_OPCODE,
  THUMBNAIL_BOX,
  attentionLevel,
  isPassiveRequest,
  thumbnailSize,
} from './attention.js';
export type { AttentionLevel } from './attention.js';
