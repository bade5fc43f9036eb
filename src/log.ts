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
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(' ')
      : '';
    const line = `${new Date().toISOString()} ${l.toUpperCase().padEnd(5)} ${scope ? `[${scope}] ` : ''}${msg}${extra}`;
    (l === 'warn' || l === 'error' ? process.stderr : process.stdout).write(line + '\n');
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
