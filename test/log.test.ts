/**
 * The logger writes one line per entry, whatever the message and fields hold: a caller's text in
 * an exception's message (an `_entities` typename with line breaks) forged whole log lines.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/log.js';

afterEach(() => vi.restoreAllMocks());

describe('createLogger', () => {
  it('writes one line per entry: line breaks and other control characters in the message or fields are escaped', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const log = createLogger('info');
    log.error('unexpected error in query Evil\nINFO  forged', {
      error: 'x\r\n2026-01-01T00:00:00.000Z INFO  Authorization: Bearer t',
      sep: 'a\u2028b\u007f',
      n: 1,
    });
    expect(written).toHaveLength(1);
    const [line] = written;
    // Before: three lines, the last two made by the caller.
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\n\r\u2028\u007f]/);
    expect(line).toContain('Evil\\nINFO  forged');
    expect(line).toContain('error=x\\r\\n2026-01-01T00:00:00.000Z INFO');
    expect(line).toContain('sep=a\\u2028b\\u007f');
    expect(line).toContain('n=1');
  });
});
