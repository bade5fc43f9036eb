/**
 * A preload for the gateway (`--import=bench/phases.mjs`; `tsx bench/profile.ts timeline` starts
 * the gateway with it): the phases of each request as the gateway itself sees them, from Node's
 * diagnostics channels (no code of the gateway's is changed): the request's arrival (its headers
 * parsed), each REST call's creation and end, and the response's finish, in µs of the monotonic
 * clock. Written as JSON to PHASES_FILE when the process exits. Meaningful for requests one at a
 * time (each call is put down to the request that arrived last).
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

const us = () => Number(process.hrtime.bigint() / 1000n);
const requests = [];
let current;
subscribe('http.server.request.start', () => requests.push((current = { arrived: us(), created: [], ended: [] })));
subscribe('undici:request:create', () => current?.created.push(us()));
subscribe('undici:request:trailers', () => current?.ended.push(us()));
subscribe('http.server.response.finish', () => {
  if (current) current.finished = us();
});
process.on('exit', () => {
  if (process.env.PHASES_FILE) writeFileSync(process.env.PHASES_FILE, JSON.stringify(requests));
});
