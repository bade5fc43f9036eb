/**
 * Refuses documents with an operation name longer than MAX_OPERATION_NAME_LENGTH, at validation
 * (before any REST call): a name is kept in metric labels, span names and log lines.
 * BAD_USER_INPUT `maxOperationName: …`. (A request's `operationName` that names no operation of
 * the document is refused by Yoga without being echoed or kept.)
 */
import { Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { limitError } from '../lib/limitError.js';
import { MAX_OPERATION_NAME_LENGTH } from '../lib/operationName.js';

export function useMaxOperationName(): Plugin {
  return {
    onValidate({ params, setResult }) {
      let found = 0;
      for (const definition of params.documentAST.definitions)
        if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) found = Math.max(found, definition.name.value.length);
      if (found > MAX_OPERATION_NAME_LENGTH)
        setResult([
          limitError(
            'maxOperationName',
            MAX_OPERATION_NAME_LENGTH,
            `Operation names are limited to ${MAX_OPERATION_NAME_LENGTH} characters, found ${found}.`,
            found,
          ),
        ]);
    },
  };
}
