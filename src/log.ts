import { LOG_LEVELS, type LogLevel } from './config.js';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Where lines go: stdout, and stderr for warnings and errors. */
export interface LogOutput {
  stdout: NodeJS.WritableStream & { writableLength: number };
  stderr: NodeJS.WritableStream & { writableLength: number };
}

/**
 * Bytes of lines a stream may hold not yet written before further lines are dropped and counted.
 * Writes to a pipe are queued in memory while its reader does not read: with stdout piped to a
 * log shipper that stalled, an anonymous client's requests at `debug` (one 620-byte line each)
 * took the gateway from 117 to 171 MiB RSS in 45,000 requests, and on without bound.
 */
export const MAX_PENDING_LOG_BYTES = 1024 * 1024;

/** Lines dropped per stream since its last line written (every logger writing to it counts). */
const dropped = new WeakMap<object, number>();

/**
 * Streams whose write errors are ignored (their lines lost). A write to a pipe whose reader left
 * (`npm start | head -1`, a log shipper that exited) fails with EPIPE as an `error` event: with no
 * listener, the next line (SIGTERM's "draining") ended the process at once, exit 1 with a stack
 * trace, its requests in flight cut; any warning a client could cause did the same. `console`
 * ignores such errors for its own lines.
 */
const guarded = new WeakSet<object>();

function ignoreWriteErrors(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', () => {});
}

/**
 * Leveled logger: one line per entry, `key=value` fields; warnings and errors go to stderr. Past
 * MAX_PENDING_LOG_BYTES not yet written to its stream, a line is dropped; the next one written
 * there carries `dropped=<count>`.
 */
export function createLogger(level: LogLevel, scope = '', output: LogOutput = process): Logger {
  const min = LOG_LEVELS.indexOf(level);
  ignoreWriteErrors(output.stdout);
  ignoreWriteErrors(output.stderr);
  const write = (l: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(l) < min) return;
    const stream = l === 'warn' || l === 'error' ? output.stderr : output.stdout;
    const lost = dropped.get(stream) ?? 0;
    if (stream.writableLength > MAX_PENDING_LOG_BYTES) return void dropped.set(stream, lost + 1);
    const all = lost ? { ...fields, dropped: lost } : fields;
    const extra = all
      ? ' ' +
        Object.entries(all)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? oneLine(v) : JSON.stringify(v)}`)
          .join(' ')
      : '';
    const line = `${new Date().toISOString()} ${l.toUpperCase().padEnd(5)} ${scope ? `[${scope}] ` : ''}${oneLine(msg)}${extra}`;
    dropped.delete(stream);
    stream.write(line + '\n');
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/**
 * `text` on one line: control characters (C0, DEL and C1, whose NEL breaks lines too) and line
 * separators written as escapes (`\\n`, `\\u2028`). A message may carry a caller's text (an
 * exception's message naming an input): with its line breaks, an anonymous caller forged whole
 * log lines (`… INFO … Authorization: Bearer …`).
 */
function oneLine(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROL_ALL, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * `write` bounded to `perWindow` lines a window of `windowMs` (on `now`): past it, lines are dropped
 * and counted, and the first line written after them carries `suppressed: <count>`. For lines a
 * caller or the machine can make by the thousand: unexpected errors (gateway/lib/maskedErrors.ts),
 * connections that could not be accepted (serverBounds.ts).
 */
export function boundedLines(
  write: (msg: string, fields?: Record<string, unknown>) => void,
  perWindow: number,
  windowMs: number,
  now: () => number = () => performance.now(),
): (msg: string, fields?: Record<string, unknown>) => void {
  let windowStart = -Infinity;
  let written = 0;
  let suppressed = 0;
  return (msg, fields) => {
    const at = now();
    if (at - windowStart >= windowMs) {
      windowStart = at;
      written = 0;
    }
    if (written >= perWindow) return void suppressed++;
    written++;
    write(msg, suppressed ? { ...fields, suppressed } : fields);
    suppressed = 0;
  };
}
