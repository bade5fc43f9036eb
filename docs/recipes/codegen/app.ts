// Typed documents (written by GraphQL Codegen's client preset into ./gql) sent by id only.
import { graphql } from './gql/index.js';
import type { TypedDocumentString } from './gql/graphql.js';

export const SpacesQuery = graphql(`
  query Spaces($org: String!, $first: Int) {
    organization(organizationId: $org) {
      title
      spaces(first: $first) { nodes { id title createdAt } }
    }
  }
`);

export const CreateSpaceMutation = graphql(`
  mutation CreateSpace($org: String!, $title: String!) {
    createSpace(input: { organizationId: $org, title: $title }) { space { id title } }
  }
`);

/**
 * Runs a persisted document: `{"documentId": …}` only, no query text (what a gateway started with
 * `--persisted-only` accepts); queries over GET (cacheable), mutations over POST.
 */
export async function execute<TResult, TVariables>(
  url: string,
  token: string,
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
): Promise<TResult> {
  const documentId = document.__meta__!.hash as string; // "sha256:<hex>", as in persisted-documents.json
  const headers = { authorization: `Bearer ${token}`, accept: 'application/graphql-response+json' };
  const response = /^\s*mutation\b/.test(document.toString())
    ? await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ documentId, variables }) })
    : await fetch(`${url}?${new URLSearchParams({ documentId, variables: JSON.stringify(variables) })}`, { headers });
  const { data, errors } = (await response.json()) as { data?: TResult; errors?: Array<{ message: string }> };
  if (errors?.length) throw new Error(errors.map((e) => e.message).join('; '));
  return data!;
}
