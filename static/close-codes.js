// The websocket close codes the server sends (the protocol crate's
// `CloseCode`; a test of that crate checks that these agree with it).

/** The server is shutting down. */
export const SHUTTING_DOWN = 1001;
/** Too many messages. */
export const RATE_LIMITED = 1008;
/** A message over 16 KiB. */
export const TOO_LARGE = 1009;
/** The table moved to another node of the cluster; reconnect. */
export const MOVED = 1012;
/** The same seat connected again elsewhere; the newer socket plays. */
export const REPLACED = 4000;
/** The page did not read its messages fast enough. */
export const TOO_SLOW = 4001;
/** The page answered nothing, not even pings, for too long. */
export const UNRESPONSIVE = 4002;
/** The socket joined no table within 10 seconds of opening. */
export const NO_HELLO = 4003;
