/**
 * `parseOpenApi` in a child process, bounded in memory (HEAP_FLAGS) and time. On the event loop, a YAML parse built a syntax tree hundreds of times the size of its text
 * (a 300 KB flow sequence of 150,000 items needed more than the whole process's 128 MB heap, which
 * killed it) and took seconds on large documents, during which no request was answered. Here a
 * parse that runs out of memory, fails or overruns gives PARSE_ERROR with TOO_LARGE, and only the
 * child goes away.
 *
 * A process rather than a worker thread with `resourceLimits`: on Node 20, a worker whose
 * `JSON.parse` went well past its limit (`{"a":[{},{},…]}`, 9 MB) finished the parse, then hit the
 * limit again while its isolate was torn down, and that aborted the whole process (`FATAL ERROR:
 * Reached heap limit`; nodejs/node#47224). Ending a thread early (`terminate`) could abort it too
 * (src/gateway/lib/introspectionWorker.ts, STOP_MS). A child is killed, or dies, on its own.
 *
 * A child's start costs about 60 ms from dist/ and 250 ms from src/ (tsx compiles parse.ts), so a
 * child that answered is kept for the next parse for IDLE_MS. As many children as parses run at
 * once (process.ts lets two run); one that overran or ran out of memory is gone, the next parse
 * starts a new one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import type { ParseResult } from './parse.js';

/** The child's heap, in MB (old generation). */
export const HEAP_MB = 64;

/**
 * Measured on Node 20 (peak heap of the parse): a 9.8 MB JSON spec of 8,000 paths, 33 MB; a 1.1 MB
 * YAML spec of 700 paths (YAML costs some 40 times its size), 41 MB; the 150,000-item flow sequence
 * and a 10 MB `[{},{},…]` run out. Half the gateway process's own heap (`npm start` caps it at
 * 128 MB); a small young generation (semi-spaces of 4 MB), as the introspection worker's.
 */
const HEAP_FLAGS = [`--max-old-space-size=${HEAP_MB}`, '--max-semi-space-size=4'];

/** Below the event loop's priority: the parse competes with the requests for the cores. */
const NICE = 10;

/** What a spec that cannot be parsed within the limits stores as its error. */
export const TOO_LARGE = 'The document is too large or too complex to parse';

/** A child that has answered waits this long for the next parse, then ends (its heap with it). */
export const IDLE_MS = 5_000;

/**
 * CommonJS, given to `node -e`: answers each message `{ text }` with parseOpenApi's result, over
 * the IPC channel, and ends when its parent goes. It loads parse.ts's module, compiled beside this
 * one in dist/ (`npm start`), or, from src/ (vitest, `npm run dev`), through tsx's require.
 */
const CHILD = `
const [module, tsx] = process.argv.slice(1);
const loaded = tsx ? Promise.resolve(require(tsx).require(module, module)) : import(module);
process.on('message', ({ text }) => loaded.then(({ parseOpenApi }) => process.send(parseOpenApi(text))));
process.on('disconnect', () => process.exit());
`;

const PARSE_MODULE = new URL(import.meta.url.endsWith('.ts') ? './parse.ts' : './parse.js', import.meta.url).href;
let tsx: string | undefined;

interface Parser {
  child: ChildProcess;
  /** The end of what it wrote to stderr (V8's out-of-memory report). */
  stderr: string;
  /** Ends it when no parse came within IDLE_MS. */
  idle?: NodeJS.Timeout;
}

/** Children that have answered and wait for the next parse (at most as many as parse at once). */
const waiting: Parser[] = [];

function spawnParser(): Parser {
  if (PARSE_MODULE.endsWith('.ts')) tsx ??= createRequire(import.meta.url).resolve('tsx/cjs/api');
  const child = spawn(process.execPath, [...HEAP_FLAGS, '-e', CHILD, PARSE_MODULE, ...(tsx ? [tsx] : [])], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const parser: Parser = { child, stderr: '' };
  try {
    if (process.platform === 'linux' && child.pid) setPriority(child.pid, NICE);
  } catch {
    // already ended: its exit tells
  }
  child.stderr?.on('data', (chunk: Buffer) => (parser.stderr = (parser.stderr + chunk.toString()).slice(-4096)));
  child.on('error', () => undefined); // told by its exit
  child.on('exit', () => {
    clearTimeout(parser.idle);
    if (waiting.includes(parser)) waiting.splice(waiting.indexOf(parser), 1);
  });
  return parser;
}

/** A child that answered waits for the next parse without keeping the process alive. */
function park(parser: Parser): void {
  parser.child.unref();
  parser.child.channel?.unref();
  parser.idle = setTimeout(() => {
    waiting.splice(waiting.indexOf(parser), 1);
    parser.child.kill('SIGKILL');
  }, IDLE_MS).unref();
  waiting.push(parser);
}

function unpark(): Parser | undefined {
  const parser = waiting.pop();
  if (!parser) return undefined;
  clearTimeout(parser.idle);
  if (parser.child.exitCode !== null || parser.child.signalCode !== null) return unpark();
  parser.child.ref();
  parser.child.channel?.ref();
  return parser;
}

export interface ParseOptions {
  /** Longest a parse may take (a child's start included); beyond, its child is killed: TOO_LARGE. */
  timeoutMs: number;
  /** Aborted when the server stops: the child is killed and the promise rejects with its reason. */
  signal: AbortSignal;
}

/** Parses `text` as `parseOpenApi` does, in a child process (one that waits, or a new one). */
export function parseInChild(text: string, { timeoutMs, signal }: ParseOptions): Promise<ParseResult> {
  if (signal.aborted) return Promise.reject(signal.reason);
  const parser = unpark() ?? spawnParser();
  const { child } = parser;
  return new Promise((resolve, reject) => {
    let overrun = false;
    const deadline = setTimeout(() => {
      overrun = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const abort = () => child.kill('SIGKILL');
    const done = () => {
      clearTimeout(deadline);
      signal.removeEventListener('abort', abort);
      child.off('message', answered);
      child.off('exit', ended);
      child.off('error', failed);
    };
    const answered = (result: ParseResult) => {
      if (overrun || signal.aborted) return; // being killed: told by its exit
      done();
      park(parser);
      resolve(result);
    };
    const ended = (code: number | null, error?: Error) => {
      done();
      if (signal.aborted) return reject(signal.reason);
      if (overrun) return resolve({ ok: false, message: `${TOO_LARGE} within ${timeoutMs} ms` });
      if (parser.stderr.includes('heap out of memory')) return resolve({ ok: false, message: `${TOO_LARGE} in ${HEAP_MB} MB of memory` });
      console.error(`[upstream] OpenAPI parser process ended (exit code ${code}):`, error?.message ?? parser.stderr);
      resolve({ ok: false, message: 'The document could not be parsed: its parser failed' });
    };
    // A child that could not start has no exit to tell.
    const failed = (error: Error) => child.pid === undefined && ended(null, error);
    signal.addEventListener('abort', abort, { once: true });
    child.once('message', answered);
    child.once('exit', ended);
    child.on('error', failed);
    child.send({ text }, (error) => error && child.kill('SIGKILL'));
  });
}
