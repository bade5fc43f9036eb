// A paginated list as a React component reads it: `usePaginationFragment(SpaceList_organization, ref)`,
// then `loadNext(2)` runs the generated SpaceListPaginationQuery (node(id:) with `after`).
import { graphql } from 'relay-runtime';

export const spaceListQuery = graphql`
  query SpaceListQuery($org: String!) {
    organization(organizationId: $org) {
      id
      title
      ...SpaceList_organization
    }
  }
`;

export const spaceListFragment = graphql`
  fragment SpaceList_organization on Organization
  @refetchable(queryName: "SpaceListPaginationQuery")
  @argumentDefinitions(first: { type: "Int", defaultValue: 2 }, after: { type: "String" }) {
    spaces(first: $first, after: $after) @connection(key: "SpaceList_spaces") {
      edges { node { id title } }
    }
  }
`;

// A mutation adds its space to the connection the list shows, with no refetch.
export const createSpaceMutation = graphql`
  mutation SpaceListCreateMutation($org: String!, $title: String!, $connections: [ID!]!) {
    createSpace(input: { organizationId: $org, title: $title }) {
      space @appendNode(connections: $connections, edgeTypeName: "SpaceEdge") { id title }
    }
  }
`;
