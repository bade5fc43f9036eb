/**
 * A verdict on an operation of a parsed document, decided once per document (Yoga keeps parsed
 * documents per text, so the same object comes back) and operation name, not on every request.
 * A client's operation names are its own: at most 16 are kept per document.
 */
import { getOperationAST, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { fragmentsOf } from '../../schema/lib/rootFields.js';

export type Decide = (operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>) => boolean;

export function operationVerdict(decide: Decide): (document: DocumentNode, operationName: string | null | undefined) => boolean {
  const verdicts = new WeakMap<DocumentNode, Map<string, boolean>>();
  return (document, operationName) => {
    let byName = verdicts.get(document);
    if (!byName) verdicts.set(document, (byName = new Map()));
    let verdict = byName.get(operationName ?? '');
    if (verdict === undefined) {
      const operation = getOperationAST(document, operationName);
      verdict = operation ? decide(operation, fragmentsOf(document)) : false;
      if (byName.size < 16) byName.set(operationName ?? '', verdict);
    }
    return verdict;
  };
}
