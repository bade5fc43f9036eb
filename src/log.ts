import { LOG_LEVELS, type LogLevel } from './config.js';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Leveled logger: one line per entry, `key=value` fields; warnings and errors go to stderr. */
export function createLogger(level: LogLevel, scope = ''): Logger {
  const min = LOG_LEVELS.indexOf(level);
  const write = (l: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(l) < min) return;
    const extra = fields
      ? ' ' +
        Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? oneLine(v) : JSON.stringify(v)}`)
          .join(' ')
      : '';
    const line = `${new Date().toISOString()} ${l.toUpperCase().padEnd(5)} ${scope ? `[${scope}] ` : ''}${oneLine(msg)}${extra}`;
    (l === 'warn' || l === 'error' ? process.stderr : process.stdout).write(line + '\n');
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/**
 * `text` on one line: control characters and line separators written as escapes (`\\n`, `\\u2028`). A message
 * may carry a caller's text (an exception's message naming an input): with its line breaks, an
 * anonymous caller forged whole log lines (`… INFO … Authorization: Bearer …`).
 */
function oneLine(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROL_ALL, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f\u2028\u2029]/g;

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
