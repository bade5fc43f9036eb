/**
 * Rejects documents with more than `maxFields` fields written in them (fragments counted once,
 * where defined), after parsing and before validation: graphql-js's overlapping-fields rule grows
 * with the square of the fields that share a response name, so 440 `viewer { id }` (2 KB, within
 * the token limit) cost about 0.2 s of validation each time. Counting is one walk of the document,
 * kept per parsed document (Yoga caches those per query text). BAD_USER_INPUT `maxFields: …`.
 */
import type { ASTNode, DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { limitError } from '../lib/limitError.js';

export function useMaxFields(maxFields: number): Plugin {
  const counted = new WeakMap<DocumentNode, number>();
  return {
    onValidate({ params, setResult }) {
      const document = params.documentAST;
      let fields = counted.get(document);
      if (fields === undefined) counted.set(document, (fields = countFields(document)));
      if (fields > maxFields)
        setResult([
          limitError('maxFields', maxFields, `Query field limit of ${maxFields} exceeded, found ${fields} (fragments count once).`, fields),
        ]);
    },
  };
}

/** The Field nodes of a document, by an explicit stack (no recursion, no visitor allocations). */
export function countFields(document: DocumentNode): number {
  let fields = 0;
  const stack: ASTNode[] = [...document.definitions];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.kind === 'Field') fields++;
    if ('selectionSet' in node && node.selectionSet) stack.push(...node.selectionSet.selections);
  }
  return fields;
}
