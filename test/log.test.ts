/**
 * The logger writes one line per entry, whatever the message and fields hold: a caller's text in
 * an exception's message (an `_entities` typename with line breaks) forged whole log lines.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, MAX_PENDING_LOG_BYTES } from '../src/log.js';
import { startStack } from './helpers/gateway.js';

afterEach(() => vi.restoreAllMocks());

describe('createLogger', () => {
  it('writes one line per entry: line breaks and other control characters in the message or fields are escaped', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const log = createLogger('info');
    log.error('unexpected error in query Evil\nINFO  forged', {
      error: 'x\r\n2026-01-01T00:00:00.000Z INFO  Authorization: Bearer t',
      sep: 'a\u2028b\u007f',
      // NEL is a line break to Unicode-aware viewers, CSI an escape to terminals that take C1 controls.
      c1: 'a\u0085b\u009b31m',
      n: 1,
    });
    expect(written).toHaveLength(1);
    const [line] = written;
    // Before: three lines, the last two made by the caller.
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\n\r\u2028\u007f-\u009f]/);
    expect(line).toContain('Evil\\nINFO  forged');
    expect(line).toContain('error=x\\r\\n2026-01-01T00:00:00.000Z INFO');
    expect(line).toContain('sep=a\\u2028b\\u007f');
    expect(line).toContain('c1=a\\u0085b\\u009b31m');
    expect(line).toContain('n=1');
  });

  it('drops lines while MAX_PENDING_LOG_BYTES wait for a stream nobody reads, and counts them on the next line', async () => {
    // A pipe whose reader stalled: writes wait in memory until it reads again.
    const lines: string[] = [];
    let waiting: (() => void) | undefined;
    let reading = false;
    const pipe = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        if (reading) done();
        else waiting = done;
      },
    });
    const t = await startStack({ log: createLogger('debug', 'gateway', { stdout: pipe, stderr: pipe }), logLevel: 'debug' });
    try {
      pipe.write(Buffer.alloc(MAX_PENDING_LOG_BYTES + 1, 'x'));
      const held = pipe.writableLength;
      expect(held).toBeGreaterThan(MAX_PENDING_LOG_BYTES);
      const query = `query ${'N'.repeat(250)} { __typename }`;
      for (let i = 0; i < 20; i++) expect((await t.gql(query, undefined, null)).data).toEqual({ __typename: 'Query' });
      // Before: every request's lines were queued behind it (620 bytes each, without bound).
      expect(pipe.writableLength).toBe(held);
      reading = true;
      waiting?.();
      await expect.poll(() => pipe.writableLength).toBe(0);
      lines.length = 0;
      await t.gql(query, undefined, null);
      expect(lines[0]).toMatch(/ dropped=\d+\n$/);
      expect(Number(lines[0].match(/ dropped=(\d+)/)![1])).toBeGreaterThanOrEqual(20);
      expect(lines.slice(1).join('')).not.toContain('dropped=');
    } finally {
      await t.stop();
    }
  });
});
