/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type SpacesQueryVariables = Exact<{
  org: string;
  first?: number | null | undefined;
}>;


export type SpacesQuery = { organization: { title: string, spaces: { nodes: Array<{ id: string, title: string, createdAt: string }> } | null } | null };

export type CreateSpaceMutationVariables = Exact<{
  org: string;
  title: string;
}>;


export type CreateSpaceMutation = { createSpace: { space: { id: string, title: string } | null } | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const SpacesDocument = new TypedDocumentString(`
    query Spaces($org: String!, $first: Int) {
  organization(organizationId: $org) {
    title
    spaces(first: $first) {
      nodes {
        id
        title
        createdAt
      }
    }
  }
}
    `, {"hash":"sha256:465c7fe2c83dfd35479b02103898f651194aaf9b60cf5eb949cd2bc595ba7844"}) as unknown as TypedDocumentString<SpacesQuery, SpacesQueryVariables>;
export const CreateSpaceDocument = new TypedDocumentString(`
    mutation CreateSpace($org: String!, $title: String!) {
  createSpace(input: {organizationId: $org, title: $title}) {
    space {
      id
      title
    }
  }
}
    `, {"hash":"sha256:415607ca7bf7eab000248d7889d4cb178f58a61414621331f6e9bb028019073f"}) as unknown as TypedDocumentString<CreateSpaceMutation, CreateSpaceMutationVariables>;