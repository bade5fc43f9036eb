/**
 * Response bodies that are the same for every caller (the kept introspection answers,
 * useIntrospectionCache.ts; the latest render of /metrics, metrics.ts), each with its compressed
 * forms once made: the compression plugin compresses such a body once per encoding, not at every
 * response (the full introspection answer, 438 KB: 3–4 ms of CPU each time). Only bodies
 * registered here are compressed once for all; a per-caller result never is, since a compression
 * cache shared by callers would tell one of them, by its speed, that another had just been sent the
 * same text. One registry per gateway; a body leaves it when its kept result is dropped (a render,
 * when the next one is made), so it holds at most what those hold (their text once more as bytes
 * for clients that take no compression, and their compressed forms, about a tenth of that).
 */
import type { Encoding } from './contentEncoding.js';

export class SharedBodies {
  private readonly bodies = new Map<string, Partial<Record<Encoding, Promise<Buffer>>> & { bytes?: Buffer }>();

  add(body: string): void {
    if (!this.bodies.has(body)) this.bodies.set(body, {});
  }

  delete(body: string): void {
    this.bodies.delete(body);
  }

  /**
   * The body as UTF-8 bytes, made on first need; undefined for a body not registered. Written as a
   * string, the full introspection answer was encoded again at every response (1.3 ms of the
   * event loop each).
   */
  bytes(body: string): Buffer | undefined {
    const forms = this.bodies.get(body);
    if (!forms) return undefined;
    return (forms.bytes ??= Buffer.from(body));
  }

  /** The body's form in `encoding`, made by `make` on first need; undefined for a body not registered. */
  compressed(body: string, encoding: Encoding, make: () => Promise<Buffer>): Promise<Buffer> | undefined {
    const forms = this.bodies.get(body);
    if (!forms) return undefined;
    let form = forms[encoding];
    if (!form) {
      form = forms[encoding] = make();
      // A failed compression is not kept: the next response tries again.
      form.catch(() => {
        if (forms[encoding] === form) delete forms[encoding];
      });
    }
    return form;
  }
}
