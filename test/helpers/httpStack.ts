/**
 * A stack (startStack) whose gateway listens on a loopback port, for one test file: started
 * before its tests and stopped after them. `post` sends a GraphQL request over real HTTP with
 * the given `Authorization` (none when absent).
 */
import { afterAll, beforeAll } from 'vitest';
import { startStack, type GqlResult, type TestStack } from './gateway.js';

export interface HttpStack {
  readonly t: TestStack;
  readonly url: string;
  post(body: unknown, authorization?: string): Promise<{ status: number; result: GqlResult }>;
}

export function httpStack(): HttpStack {
  let t: TestStack | undefined;
  let url = '';
  beforeAll(async () => {
    t = await startStack();
    url = await t.gateway.start();
  });
  afterAll(() => t?.stop());
  return {
    get t() {
      return t!;
    },
    get url() {
      return url;
    },
    async post(body, authorization) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(body),
      });
      return { status: res.status, result: (await res.json()) as GqlResult };
    },
  };
}
