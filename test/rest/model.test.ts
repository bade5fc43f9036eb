/**
 * Model-based tests of the REST client's shared state machines (the limiter, the circuits, the
 * bytes in flight, the retry budget, single-flight and kept answers, the byte budgets, the
 * deadline): long seeded random sequences of operations run on the real module and on a small
 * reference model side by side, on a fake clock, with the invariants checked after every step. A
 * failure prints its seed and the steps that led to it; fixed seeds keep every run the same.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ByteBudgets } from '../../src/rest/byteBudget.js';
import { BytesInFlight } from '../../src/rest/bytesInFlight.js';
import { CircuitOpen, Circuits, ORIGIN, type Admission } from '../../src/rest/circuit.js';
import { Limiter, Overloaded, WaitAborted, type CallerSlots } from '../../src/rest/limiter.js';
import { Deadline } from '../../src/rest/deadline.js';
import type { Prepared } from '../../src/rest/request.js';
import { RetryBudget } from '../../src/rest/retryBudget.js';
import { Leaving, SharedReads, type Arrival } from '../../src/rest/singleFlight.js';
import type { Health } from '../../src/rest/responses.js';
import { fakeClock } from '../helpers/clock.js';

/** mulberry32: a small seeded generator, so every sequence can be replayed from its seed. */
function random(seed: number): { int(n: number): number; pick<T>(items: readonly T[]): T } {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (n) => Math.floor(next() * n), pick: (items) => items[Math.floor(next() * items.length)] };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

class Signal extends EventEmitter {
  aborted = false;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

describe('Limiter against a model', () => {
  interface Call {
    id: number;
    caller: number;
    signal: Signal;
    state: 'waiting' | 'held' | 'refused' | 'aborted' | 'released';
  }

  async function run(seed: number, steps: number): Promise<void> {
    const rnd = random(seed);
    const config = { total: 1 + rnd.int(4), perCaller: 1, queuePerCaller: 1 + rnd.int(3), queueTotal: 1 + rnd.int(6) };
    config.perCaller = 1 + rnd.int(config.total);
    const limiter = new Limiter(config);
    const callers: CallerSlots[] = [0, 1, 2].map(() => ({ active: 0, queue: [] }));
    const calls: Call[] = [];
    const log: string[] = [JSON.stringify(config)];
    // Failures found in promise handlers are thrown after the step (a throw there would go unseen).
    const found: string[] = [];
    const fail = (why: string) => void found.push(`seed ${seed}: ${why}\n${log.join('\n')}`);
    for (let step = 0; step < steps; step++) {
      const op = rnd.int(10);
      const live = (s: Call['state']) => calls.filter((c) => c.state === s);
      if (op < 4) {
        const caller = rnd.int(callers.length);
        // The model: queued (and refused) exactly as the contract says, from the counts before.
        const held = live('held');
        const waiting = live('waiting').length;
        const mineHeld = held.filter((c) => c.caller === caller).length;
        const mineWaiting = live('waiting').filter((c) => c.caller === caller).length;
        const free = mineHeld < config.perCaller && held.length < config.total;
        const call: Call = { id: calls.length, caller, signal: new Signal(), state: 'waiting' };
        calls.push(call);
        // Now and then its deadline ran out before it asked (a slow retry): it is refused or aborted, never queued.
        if (rnd.int(10) === 0) call.signal.abort();
        log.push(
          `acquire #${call.id} caller ${caller} (held ${held.map((c) => `#${c.id}/${c.caller}`).join(' ')}; waiting ${live('waiting')
            .map((c) => `#${c.id}/${c.caller}`)
            .join(' ')})`,
        );
        try {
          const waiting$ = limiter.acquire(callers[caller], call.signal);
          if (!waiting$) {
            if (!free) fail(`#${call.id} held at once with no free slot`);
            call.state = 'held';
          } else {
            if (free) fail(`#${call.id} queued with free slots`);
            if (waiting >= config.queueTotal || mineHeld + mineWaiting >= config.perCaller + config.queuePerCaller)
              fail(
                `#${call.id} queued past a full queue (${mineHeld} held, ${mineWaiting} waiting, ${waiting} in all; real ${callers[caller].active} active, ${callers[caller].queue.length} queued, ${limiter['active']} in all)`,
              );
            waiting$.then(
              () => {
                if (call.state !== 'waiting') fail(`#${call.id} resolved in state ${call.state}`);
                call.state = 'held';
              },
              (error: unknown) => {
                if (!(error instanceof WaitAborted) || !call.signal.aborted) fail(`#${call.id} rejected: ${String(error)}`);
                call.state = 'aborted';
              },
            );
          }
        } catch (error) {
          if (!(error instanceof Overloaded)) throw error;
          call.state = 'refused';
          const full =
            error.scope === 'total' ? waiting >= config.queueTotal : mineHeld + mineWaiting >= config.perCaller + config.queuePerCaller;
          if (free || !full) fail(`#${call.id} refused (${error.scope}) with room in its queue`);
        }
      } else if (op < 7) {
        const held = live('held');
        if (!held.length) continue;
        const call = rnd.pick(held);
        log.push(`release #${call.id}`);
        call.state = 'released';
        limiter.release(callers[call.caller]);
      } else if (op < 9) {
        const waiting = live('waiting');
        if (!waiting.length) continue;
        const call = rnd.pick(waiting);
        log.push(`abort #${call.id}`);
        call.signal.abort();
      } else {
        // A held call's signal fires: it keeps its slot until it releases it.
        const held = live('held');
        if (!held.length) continue;
        const call = rnd.pick(held);
        log.push(`abort held #${call.id}`);
        call.signal.abort();
      }
      await flush();
      if (found.length) expect.fail(found[0]);
      const held = live('held');
      const waiting = live('waiting');
      if (held.length > config.total) fail(`${held.length} held of ${config.total}`);
      for (let c = 0; c < callers.length; c++) {
        const mine = held.filter((call) => call.caller === c).length;
        if (mine > config.perCaller) fail(`caller ${c} holds ${mine} of ${config.perCaller}`);
        // Nothing waits while its caller and the total both have a free slot.
        const mineWaiting = waiting.filter((call) => call.caller === c);
        if (mineWaiting.length && mine < config.perCaller && held.length < config.total)
          fail(`caller ${c} has ${mineWaiting.length} waiting with free slots (${mine} held, ${held.length} in all)`);
        // The limiter's own counts: its slots held plus those held by its calls waiting for a total slot.
        if (callers[c].active < mine || callers[c].active > mine + mineWaiting.length)
          fail(`caller ${c} counts ${callers[c].active} active, ${mine} held`);
      }
      if (!waiting.length && callers.some((c) => c.active !== held.filter((call) => callers[call.caller] === c).length))
        fail('caller counts off with nobody waiting');
    }
    // Every held call gives its slots back, every waiting one is woken or aborted: the limiter is at rest.
    for (let rounds = 0; rounds < 1000; rounds++) {
      const call = calls.find((c) => c.state === 'held') ?? calls.find((c) => c.state === 'waiting');
      if (!call) break;
      if (call.state === 'held') {
        call.state = 'released';
        limiter.release(callers[call.caller]);
      } else call.signal.abort();
      await flush();
    }
    if (calls.some((c) => c.state === 'waiting' || c.state === 'held')) fail('calls left');
    if (found.length) expect.fail(found[0]);
    if (callers.some((c) => c.active !== 0 || c.queue.length !== 0)) fail(`not at rest: ${JSON.stringify(callers.map((c) => c.active))}`);
    expect(limiter['active']).toBe(0);
    expect(limiter['waiting']).toBe(0);
  }

  it('holds its invariants over 400 sequences of 200 steps', async () => {
    for (let seed = 1; seed <= 400; seed++) await run(seed, 200);
  });
});

describe('Circuits against a model', () => {
  type State = 'closed' | 'open' | 'half-open';
  interface Model {
    state: State;
    /** The failures in a row, by caller. */
    run: string[];
    openedAt: number;
    probe: boolean;
  }

  function run(seed: number, steps: number): void {
    const rnd = random(seed);
    const config = { threshold: 1 + rnd.int(4), cooldownMs: 1000, minCallers: 1 + rnd.int(2) };
    const clock = fakeClock();
    const circuits = new Circuits(config, { origin: 'test' }, clock);
    const routes = ['/a', '/b', '/c'];
    const model = new Map<string, Model>([ORIGIN, ...routes].map((r) => [r, { state: 'closed', run: [], openedAt: 0, probe: false }]));
    const out: { route: string; caller: string; admission: Admission; probes: string[] }[] = [];
    const log: string[] = [JSON.stringify(config)];
    const fail = (why: string) => expect.fail(`seed ${seed}: ${why}\n${log.join('\n')}`);
    const blocks = (m: Model) => m.state !== 'closed' && ((m.state === 'open' && clock.now() - m.openedAt < config.cooldownMs) || m.probe);
    const open = (m: Model) => Object.assign(m, { state: 'open', run: [], openedAt: clock.now() });
    const close = (m: Model) => Object.assign(m, { state: 'closed', run: [] });
    const failed = (route: string, m: Model, caller: string | undefined) => {
      if (m.state === 'half-open') return open(m);
      if (m.state === 'open') return;
      m.run.push(caller ?? '');
      const callers = new Set(m.run).size;
      if (m.run.length >= config.threshold && (route === ORIGIN || callers >= config.minCallers)) open(m);
    };
    for (let step = 0; step < steps; step++) {
      const op = rnd.int(10);
      if (op < 4) {
        const route = rnd.pick(routes);
        const caller = rnd.pick(['x', 'y', 'z']);
        const origin = model.get(ORIGIN)!;
        const own = model.get(route)!;
        const refusedBy = blocks(origin) ? ORIGIN : blocks(own) ? route : undefined;
        log.push(`admit ${route} ${caller}`);
        try {
          const admission = circuits.admit(route, caller);
          if (refusedBy) fail(`admitted, the model refuses (${refusedBy})`);
          const probes = [];
          if (origin.state !== 'closed') probes.push(ORIGIN);
          if (own.state !== 'closed') probes.push(route);
          for (const p of probes) Object.assign(model.get(p)!, { state: 'half-open', probe: true });
          out.push({ route, caller, admission, probes });
        } catch (error) {
          if (!(error instanceof CircuitOpen)) throw error;
          if (error.route !== refusedBy) fail(`refused by ${error.route}, the model says ${refusedBy}`);
        }
      } else if (op < 8) {
        if (!out.length) continue;
        const call = out.splice(rnd.int(out.length), 1)[0];
        const health = rnd.pick<Health>(['healthy', 'healthy', 'route', 'route', 'origin', 'neutral']);
        log.push(`done ${call.route} ${call.caller} ${health}`);
        call.admission.done(health);
        for (const p of call.probes) model.get(p)!.probe = false;
        const origin = model.get(ORIGIN)!;
        const own = model.get(call.route)!;
        if (health === 'origin') failed(ORIGIN, origin, undefined);
        else if (health !== 'neutral') {
          if (origin.state !== 'closed') close(origin);
          else origin.run = [];
          if (health === 'healthy') {
            if (own.state !== 'closed') close(own);
            else own.run = [];
          } else failed(call.route, own, call.caller);
        }
      } else {
        const ms = rnd.pick([10, 300, 1000]);
        log.push(`advance ${ms}`);
        clock.advance(ms);
      }
      // The real circuits decide every next call as the model does.
      for (const [route, m] of model) {
        const real = circuits['circuits'].get(route);
        const state = real?.state ?? 'closed';
        if (state !== m.state) fail(`${route} is ${state}, the model says ${m.state}`);
      }
    }
  }

  it('matches the model over 1000 sequences of 200 steps', () => {
    for (let seed = 1; seed <= 1000; seed++) run(seed, 200);
  });
});

describe('BytesInFlight against a model', () => {
  function run(seed: number, steps: number): void {
    const rnd = random(seed);
    const budget = 100 + rnd.int(1000);
    const bytes = new BytesInFlight(budget);
    const perCaller = Math.floor(budget / 4);
    const held: { caller: string; bytes: number }[] = [];
    const log: string[] = [`budget ${budget}`];
    const fail = (why: string) => expect.fail(`seed ${seed}: ${why}\n${log.join('\n')}`);
    for (let step = 0; step < steps; step++) {
      if (rnd.int(2) === 0 || !held.length) {
        const caller = rnd.pick(['x', 'y', 'z']);
        const size = rnd.int(budget / 2);
        const total = held.reduce((sum, h) => sum + h.bytes, 0);
        const mine = held.filter((h) => h.caller === caller).reduce((sum, h) => sum + h.bytes, 0);
        const fits = !(total > 0 && total + size > budget) && !(mine > 0 && mine + size > perCaller && total + size > budget / 2);
        log.push(`take ${caller} ${size}`);
        if (bytes.take(caller, size) !== fits) fail(`take ${size} answered ${!fits}`);
        if (fits) held.push({ caller, bytes: size });
      } else {
        const h = held.splice(rnd.int(held.length), 1)[0];
        log.push(`give ${h.caller} ${h.bytes}`);
        bytes.give(h.caller, h.bytes);
      }
      const total = held.reduce((sum, h) => sum + h.bytes, 0);
      if (bytes.inFlight() !== total) fail(`${bytes.inFlight()} in flight, the model holds ${total}`);
      for (const caller of ['x', 'y', 'z'])
        if (bytes.inFlight(caller) !== held.filter((h) => h.caller === caller).reduce((sum, h) => sum + h.bytes, 0))
          fail(`${caller}'s count`);
      if (held.length > 1 && total > budget) fail(`${total} held of ${budget}`);
    }
  }

  it('matches the model over 1000 sequences of 200 steps', () => {
    for (let seed = 1; seed <= 1000; seed++) run(seed, 200);
  });
});

describe('RetryBudget against a model', () => {
  /** Exact model: each deposit and withdrawal counts for ttlMs, give or take one slot (ttlMs / 10). */
  function run(seed: number, steps: number): void {
    const rnd = random(seed);
    const config = { percent: 20, minPerSecond: 0, ttlMs: 10_000 };
    const clock = fakeClock();
    const budget = new RetryBudget(config, clock.now);
    const events: { at: number; amount: number }[] = [];
    const log: string[] = [];
    const fail = (why: string) => expect.fail(`seed ${seed}: ${why}\n${log.join('\n')}`);
    const slotMs = config.ttlMs / 10;
    for (let step = 0; step < steps; step++) {
      const op = rnd.int(3);
      if (op === 0) {
        log.push('deposit');
        budget.deposit();
        events.push({ at: clock.now(), amount: config.percent / 100 });
      } else if (op === 1) {
        log.push('withdraw');
        if (budget.tryWithdraw()) events.push({ at: clock.now(), amount: -1 });
      } else {
        const ms = rnd.pick([1, 100, 999, 1500, 1999]);
        log.push(`advance ${ms}`);
        clock.advance(ms);
      }
      const now = clock.now();
      // What counts for sure (younger than ttlMs - slotMs) and what may (younger than ttlMs).
      const sure = events.filter((e) => now - e.at < config.ttlMs - slotMs);
      const may = events.filter((e) => now - e.at < config.ttlMs);
      const low = sure.reduce((s, e) => s + Math.min(0, e.amount), 0) + may.reduce((s, e) => s + Math.max(0, e.amount), 0);
      const high = sure.reduce((s, e) => s + Math.max(0, e.amount), 0) + may.reduce((s, e) => s + Math.min(0, e.amount), 0);
      const balance = budget.balance();
      if (balance > Math.max(low, high) + 1e-9 || balance < Math.min(low, high) - 1e-9)
        fail(`balance ${balance} at ${now - 1_000_000}, the model says ${Math.min(low, high)} to ${Math.max(low, high)}`);
    }
  }

  it('counts each deposit and withdrawal for its window over 1000 sequences of 200 steps', () => {
    for (let seed = 1; seed <= 1000; seed++) run(seed, 200);
  });
});

describe('SharedReads against a model', () => {
  interface Call {
    id: number;
    caller: string;
    url: string;
    write: boolean;
    startSeq: number;
    endSeq?: number;
    endTime?: number;
    deadline: Deadline;
    settle?: (ok: boolean) => void;
  }
  interface Request {
    id: number;
    caller: string;
    arrival: Arrival | undefined;
    controller: AbortController;
    leaving: Leaving;
  }
  interface Read {
    request: Request;
    url: string;
    seq: number;
    done: boolean;
    abortedWhilePending: boolean;
  }

  async function run(seed: number, steps: number): Promise<void> {
    const rnd = random(seed);
    const clock = fakeClock();
    const reads = new SharedReads(true, clock, () => new Deadline(5_000, clock));
    let seq = 0;
    const calls: Call[] = [];
    const requests: Request[] = [];
    const pending: Read[] = [];
    const writes: { caller: string; startSeq: number; endSeq?: number }[] = [];
    const log: string[] = [];
    // Failures found in promise handlers are thrown after the step (a throw there would go unseen).
    const found: string[] = [];
    const fail = (why: string) => void found.push(`seed ${seed}: ${why}\n${log.join('\n')}`);
    const stats = { joined: 0, kept: 0, ran: 0 };
    const prepared = (url: string, write: boolean): Prepared =>
      ({ info: { method: write ? 'POST' : 'GET', path: url }, route: url, url, headers: [], access: '', write }) as Prepared;
    const runner =
      (caller: string, url: string, write: boolean) =>
      (deadline: Deadline): Promise<{ value: unknown; size: number }> => {
        const call: Call = { id: calls.length, caller, url, write, startSeq: ++seq, deadline };
        calls.push(call);
        log.push(`  call #${call.id} starts`);
        return new Promise((resolve, reject) => {
          call.settle = (ok) => {
            call.settle = undefined;
            call.endSeq = ++seq;
            call.endTime = clock.now();
            if (ok) resolve({ value: Object.freeze({ call: call.id }), size: 10 });
            else reject(new Error(`call #${call.id} failed`));
          };
          deadline.once('abort', () => call.settle?.(false));
        });
      };
    const check = (read: Read, value: { call: number }) => {
      const call = calls[value.call];
      const { request } = read;
      const where = `read ${read.url} of request ${request.id} (${request.caller}) took call #${call.id}`;
      if (call.caller !== request.caller) fail(`${where} of caller ${call.caller}`);
      if (call.url !== read.url || call.write) fail(`${where} of ${call.url}`);
      if (read.abortedWhilePending) fail(`${where} after its request was aborted`);
      for (const w of writes) {
        if (w.caller === request.caller && w.startSeq < read.seq && call.startSeq < w.startSeq)
          fail(`${where}, started before a write of its caller`);
        if (w.endSeq !== undefined && w.endSeq < read.seq && call.startSeq < w.endSeq)
          fail(`${where}, started before a write (${w.caller}) ended`);
      }
      if (call.startSeq < read.seq) stats.joined++;
      if (call.endSeq! < read.seq) {
        stats.kept++;
        // A kept answer: it came back after the request arrived, at most 2 s ago.
        if (!request.arrival || call.endTime! < request.arrival.since) fail(`${where}, answered before the request arrived`);
        if (clock.now() - call.endTime! > 2_000) fail(`${where}, answered ${clock.now() - call.endTime!} ms ago`);
      }
    };
    for (let step = 0; step < steps; step++) {
      const op = rnd.int(20);
      const open = requests.filter((r) => !r.controller.signal.aborted);
      if (op < 3 || !requests.length) {
        const caller = rnd.pick(['x', 'y']);
        const controller = new AbortController();
        const request: Request = {
          id: requests.length,
          caller,
          arrival: reads.arrive(caller),
          controller,
          leaving: new Leaving(controller.signal, reads.all),
        };
        requests.push(request);
        log.push(`request ${request.id} of ${caller} arrives`);
      } else if (op < 9) {
        const request = rnd.pick(open.length ? open : requests);
        const url = rnd.pick(['/a', '/b']);
        const read: Read = { request, url, seq: ++seq, done: false, abortedWhilePending: request.controller.signal.aborted };
        log.push(`request ${request.id} reads ${url}`);
        pending.push(read);
        reads.read(request.caller, prepared(url, false), request.arrival?.since, runner(request.caller, url, false), request.leaving).then(
          (value) => {
            read.done = true;
            check(read, value as { call: number });
          },
          (error: Error) => {
            read.done = true;
            if (request.controller.signal.aborted) return;
            const call = calls[Number(/call #(\d+) failed/.exec(error.message)?.[1] ?? NaN)];
            if (!call) fail(`read ${url} of request ${request.id} failed: ${error.message}`);
            else if (call.deadline.abandoned) fail(`call #${call.id} abandoned with request ${request.id} waiting`);
          },
        );
      } else if (op < 10) {
        const request = rnd.pick(requests);
        const write = { caller: request.caller, startSeq: ++seq, endSeq: undefined as number | undefined };
        writes.push(write);
        log.push(`request ${request.id} writes`);
        reads
          .write(request.caller, prepared('/a', true), runner(request.caller, '/a', true), request.leaving)
          .catch(() => undefined)
          .finally(() => (write.endSeq = ++seq));
      } else if (op < 15) {
        const running = calls.filter((c) => c.settle);
        if (!running.length) continue;
        const call = rnd.pick(running);
        const ok = rnd.int(4) > 0;
        log.push(`call #${call.id} ${ok ? 'answers' : 'fails'}`);
        call.settle!(ok);
      } else if (op < 17) {
        if (!open.length) continue;
        const request = rnd.pick(open);
        log.push(`request ${request.id} aborted`);
        for (const read of pending) if (read.request === request && !read.done) read.abortedWhilePending = true;
        request.controller.abort();
      } else if (op < 18) {
        const request = rnd.pick(requests);
        log.push(`request ${request.id} closes`);
        request.arrival?.close();
      } else {
        const ms = rnd.pick([100, 1_000, 1_500]);
        log.push(`advance ${ms}`);
        clock.advance(ms);
      }
      await flush();
      if (found.length) expect.fail(found[0]);
    }
    for (const call of calls) call.settle?.(true);
    for (const request of requests) request.arrival?.close();
    await flush();
    if (pending.some((r) => !r.done)) fail('reads left unanswered');
    if (found.length) expect.fail(found[0]);
    totals.joined += stats.joined;
    totals.kept += stats.kept;
    totals.reads += pending.length;
    expect(reads['callers'].size).toBe(0);
  }

  const totals = { reads: 0, joined: 0, kept: 0 };

  it('matches the model over 500 sequences of 150 steps', async () => {
    for (let seed = 1; seed <= 500; seed++) await run(seed, 150);
    // The sequences share calls both ways: joined in flight, and taken once kept.
    expect(totals.joined).toBeGreaterThan(totals.reads / 10);
    expect(totals.kept).toBeGreaterThan(totals.reads / 50);
  });
});

describe('ByteBudgets against a model', () => {
  function run(seed: number, steps: number): void {
    const rnd = random(seed);
    const config = { rate: 1_000, burst: 4_000, large: 500, maxWaiting: 1 + rnd.int(3) };
    const clock = fakeClock();
    const budgets = new ByteBudgets(config, clock);
    /** Exact buckets: each charge and the refill since, capped at burst; and the calls waiting. */
    const model = new Map<string, { bytes: number; at: number }>();
    const waiting = new Map<string, number>();
    const log: string[] = [JSON.stringify(config)];
    const fail = (why: string) => expect.fail(`seed ${seed}: ${why}\n${log.join('\n')}`);
    const available = (key: string) => {
      const b = model.get(key);
      return b ? Math.min(config.burst, b.bytes + ((clock.now() - b.at) * config.rate) / 1000) : config.burst;
    };
    for (let step = 0; step < steps; step++) {
      const key = rnd.pick(['x', 'y']);
      const op = rnd.int(4);
      if (op === 0) {
        const size = rnd.pick([100, 499, 500, 2_000, 3_000]);
        log.push(`charge ${key} ${size}`);
        budgets.charge(key, size);
        if (size >= config.large) model.set(key, { bytes: available(key) - size, at: clock.now() });
      } else if (op === 1) {
        // A call: waits when in debt (counted while it waits), refused past maxWaiting.
        const expected = available(key) >= 0 ? 0 : Math.ceil((-available(key) / config.rate) * 1000);
        const wait = budgets.waitMs(key);
        log.push(`call of ${key}: wait ${wait}`);
        if (wait !== expected) fail(`waits ${wait} ms, the model says ${expected}`);
        if (wait > 0) {
          const mine = waiting.get(key) ?? 0;
          const entered = budgets.enter(key);
          if (entered !== mine < config.maxWaiting) fail(`enter answered ${entered} with ${mine} waiting`);
          if (entered) waiting.set(key, mine + 1);
        }
      } else if (op === 2) {
        const mine = waiting.get(key) ?? 0;
        if (!mine) continue;
        log.push(`a call of ${key} is done waiting`);
        budgets.leave(key);
        waiting.set(key, mine - 1);
      } else {
        const ms = rnd.pick([10, 500, 2_000]);
        log.push(`advance ${ms}`);
        clock.advance(ms);
      }
      // A caller with calls waiting keeps its count; a full bucket with none is forgotten.
      for (const [k, n] of waiting)
        if (n > 0 && budgets['buckets'].get(k)?.waiting !== n) fail(`${k} counts ${budgets['buckets'].get(k)?.waiting} waiting of ${n}`);
    }
  }

  it('matches the model over 1000 sequences of 200 steps', () => {
    for (let seed = 1; seed <= 1000; seed++) run(seed, 200);
  });
});

describe('Deadline against a model', () => {
  async function run(seed: number, steps: number): Promise<void> {
    const rnd = random(seed);
    const clock = fakeClock();
    const start = clock.now();
    const deadline = new Deadline(1_000, clock);
    /** The backoffs asked for: when each ends, how it came out, and how the model says it must. */
    const sleeps: { ends: number; outcome?: 'slept' | 'aborted'; want?: 'slept' | 'aborted' }[] = [];
    let fired = false;
    let disposed = false;
    let timedOut = false;
    const log: string[] = [];
    const fail = (why: string) => expect.fail(`seed ${seed}: ${why}\n${log.join('\n')}`);
    const fire = () => {
      fired = true;
      for (const sleep of sleeps) sleep.want ??= 'aborted';
    };
    const info = { method: 'GET' as const, path: '/a' };
    for (let step = 0; step < steps; step++) {
      const op = rnd.int(10);
      if (op < 4) {
        const ms = rnd.pick([0, 100, 400, 999, 1_000, 1_500]);
        const sleep: (typeof sleeps)[number] = { ends: clock.now() + ms, want: fired ? 'aborted' : undefined };
        sleeps.push(sleep);
        log.push(`sleep ${ms}`);
        deadline.sleep(ms, info).then(
          () => (sleep.outcome = 'slept'),
          () => (sleep.outcome = 'aborted'),
        );
      } else if (op < 5) {
        log.push('abort');
        deadline.abort();
        if (!fired) fire();
      } else if (op < 6) {
        log.push('dispose');
        deadline.dispose();
        disposed = true;
      } else {
        const ms = rnd.pick([50, 300, 700]);
        log.push(`advance ${ms}`);
        const until = clock.now() + ms;
        clock.advance(ms);
        // The timers due, in order of their time; the deadline's (set first) before a backoff's at the same time.
        const due = sleeps.filter((s) => s.want === undefined && s.ends <= until).sort((a, b) => a.ends - b.ends);
        const ends = start + 1_000;
        for (const sleep of due) {
          if (!fired && !disposed && ends <= sleep.ends) {
            timedOut = true;
            fire();
          }
          sleep.want ??= 'slept';
        }
        if (!fired && !disposed && ends <= until) {
          timedOut = true;
          fire();
        }
      }
      await flush();
      if (deadline.aborted !== fired) fail(`aborted ${deadline.aborted}, the model says ${fired}`);
      if (deadline.expired !== timedOut) fail(`expired ${deadline.expired}, the model says ${timedOut}`);
      for (const sleep of sleeps)
        if (sleep.outcome !== sleep.want)
          fail(`a backoff to ${sleep.ends - start} came out ${sleep.outcome}, the model says ${sleep.want}`);
      const waiting = sleeps.filter((s) => s.outcome === undefined).length;
      if (deadline.listenerCount('abort') !== waiting) fail(`${deadline.listenerCount('abort')} listeners for ${waiting} backoffs`);
    }
  }

  it('matches the model over 1000 sequences of 60 steps', async () => {
    for (let seed = 1; seed <= 1000; seed++) await run(seed, 60);
  });
});
