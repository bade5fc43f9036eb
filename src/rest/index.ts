export {
  createRestClient,
  path,
  encodeQuery,
  parseRetryAfter,
  backoff,
  RestCallLog,
  type RestClient,
  type RestClientConfig,
  type RestCaller,
  type RestCall,
  type CallerOptions,
  type Arrival,
  type RetryConfig,
  type Query,
  type QueryValue,
  type HttpMethod,
} from './client.js';
export {
  ERROR_CODES,
  codeForStatus,
  errorCode,
  restError,
  inputError,
  RestError,
  type ErrorCode,
  type UpstreamInfo,
  type UpstreamErrorExtensions,
} from './errors.js';
export { ANONYMOUS, callerKey } from './callerKey.js';
export { SseParser, parseSse, eventStream, type SseEvent, type SseStream } from './sse.js';
