/**
 * One debug line per GraphQL operation: its name (cut to MAX_OPERATION_NAME_LENGTH) and type,
 * its document's SHA-256, the time it took and its error codes, or `outcome: cancelled` when its
 * client left before its result (its errors are then its leaving: lib/plainPost.ts `clientLeft`).
 * Never the document's text, the variables or the token. The REST calls it made are logged by
 * src/rest at debug too.
 */
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../log.js';
import { documentHash } from '../lib/maskedErrors.js';
import { clientLeft } from '../lib/plainPost.js';
import { boundedName } from '../lib/operationName.js';
import { clientCode } from './useRequestErrorCodes.js';

export function useRequestLog(log: Logger): Plugin {
  return {
    onExecute({ args }) {
      const started = performance.now();
      const op = getOperationAST(args.document, args.operationName);
      const name = boundedName(op?.name?.value) ?? 'anonymous';
      const type = op?.operation ?? 'query';
      return {
        onExecuteDone({ result }) {
          const errors = 'errors' in result && result.errors ? result.errors : [];
          const codes = [...new Set(errors.map(clientCode))];
          const document = documentHash(args.document);
          const request = (args.contextValue as { request?: Request } | undefined)?.request;
          log.debug(
            `graphql ${type} ${name} ${Math.round(performance.now() - started)}ms`,
            !codes.length ? { document } : clientLeft(request) ? { document, outcome: 'cancelled' } : { document, errors: codes.join(',') },
          );
        },
      };
    },
  };
}
