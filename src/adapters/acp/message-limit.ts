/**
 * The largest ACP message Crow reads or passes on: 64 MiB, for `crow acp`
 * reading its client and `crow acp-bridge` reading its WebSocket clients.
 * The largest real messages are a prompt with images (the model APIs take
 * requests of about 32 MB) and a client's answer to fs/read_text_file (Crow
 * reads text files of up to 20 MB, which JSON escaping can double): both fit.
 * A longer line (or one that never ends) costs at most this much memory and
 * ends the connection with a message saying so.
 */
export const MAX_ACP_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The limit in words, for messages. */
export const MAX_ACP_MESSAGE_TEXT = `${MAX_ACP_MESSAGE_BYTES / (1024 * 1024)} MiB`;
