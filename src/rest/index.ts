/**
 * The REST client's public surface: everything outside src/rest imports from here (route templates
 * from ./routes.ts). One concern per file:
 *
 * - client.ts: createRestClient, composing the parts below; a per-caller view (`forCaller`);
 * - transport.ts: one call with its attempts (retry.ts, retryBudget.ts), through the circuit
 *   breakers (circuit.ts), a caller's bytes over time (byteBudget.ts) and concurrency limits
 *   (limiter.ts), each attempt one exchange on the pool (exchange.ts) read by responses.ts (a
 *   large answer looked at before it is parsed: jsonShape.ts), its answer's bytes (or what its
 *   parse builds) held until its operation is over (bytesInFlight.ts);
 * - singleFlight.ts: reads shared between one caller's requests (single-flight, kept answers);
 * - stream.ts + sse.ts: event streams; deadline.ts: a call's deadline; clock.ts: injectable time;
 * - callerKey.ts: who the caller is (one key per token) and whom a call is counted against;
 * - request.ts: paths, query strings, headers; errors.ts: failures as the fixed set of codes.
 *
 * The read caches, from the closest to the resolver outwards, are described in ./README.md.
 */
export {
  createRestClient,
  type RestClient,
  type RestClientConfig,
  type RestSettings,
  type RestCaller,
  type CallerOptions,
} from './client.js';
export { RestCallLog, type RestCall } from './callLog.js';
export { STREAMS_PER_CALLER, STREAMS_TOTAL } from './transport.js';
export { path, pathSegment, uriComponent, encodeQuery, MAX_URL_CHARS, type Query, type QueryValue, type HttpMethod } from './request.js';
export { parseRetryAfter, backoff, type RetryConfig } from './retry.js';
export type { Arrival, LeaveSignal } from './singleFlight.js';
export { systemClock, type Clock } from './clock.js';
export { ByteBudgets, type ByteBudgetConfig } from './byteBudget.js';
export { BytesInFlight } from './bytesInFlight.js';
export { jsonShape, parsedBytes } from './jsonShape.js';
export {
  ERROR_CODES,
  codeForStatus,
  errorCode,
  redact,
  restError,
  unavailableError,
  inputError,
  RestError,
  writeMayBeMade,
  type ErrorCode,
  type UpstreamInfo,
  type UpstreamErrorExtensions,
} from './errors.js';
export {
  ANONYMOUS,
  callerKey,
  credentialOf,
  addressKey,
  isAddressKey,
  provenBudget,
  type Credential,
  type CallerIdentity,
} from './callerKey.js';
export { SseParser, parseSse, eventStream, MAX_EVENT_CHARS, type SseEvent, type SseStream } from './sse.js';
