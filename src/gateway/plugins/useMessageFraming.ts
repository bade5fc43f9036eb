/**
 * A response's framing is node:http's: it chunks a body of unknown length to an HTTP/1.1 client
 * and ends it by closing the connection to an HTTP/1.0 one. Yoga's multipart result processor
 * (`@defer`/`@stream` over `multipart/mixed`) names `Transfer-Encoding: chunked` itself, which
 * node:http sends as given, also to an HTTP/1.0 request whose body it does not chunk: the client
 * (nginx's `proxy_pass` speaks HTTP/1.0 unless told otherwise) was told the body was chunked while
 * it was not, and read the first part's bytes as a chunk size. RFC 9112, 6.1: a server must not
 * send `Transfer-Encoding` in answer to an HTTP/1.0 request. So the header is left to node:http.
 */
import type { Plugin } from 'graphql-yoga';

export function useMessageFraming(): Plugin {
  return {
    onResponse({ response }) {
      if (response.headers.has('transfer-encoding')) response.headers.delete('transfer-encoding');
    },
  };
}
