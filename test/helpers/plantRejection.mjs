// `node --import ./test/helpers/plantRejection.mjs …`: a request to `/plant-rejection` makes a
// promise reject with no handler in the process, as a bug would (tests of the CLI's handling).
import { subscribe } from 'node:diagnostics_channel';

subscribe('http.server.request.start', ({ request }) => {
  if (request.url === '/plant-rejection') void Promise.reject(new TypeError('planted'));
});
