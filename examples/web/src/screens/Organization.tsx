import { graphql, useLazyLoadQuery, usePaginationFragment } from 'react-relay';
import type { OrganizationQuery } from '../__generated__/OrganizationQuery.graphql';
import type { Organization_spaces$key } from '../__generated__/Organization_spaces.graphql';
import { LoadMore } from '../LoadMore';
import { href } from '../route';
import { AskBox } from './AskBox';

/** An organization: its spaces, a page at a time ("Load more"), and the Ask box. */
export function OrganizationScreen({ organizationId }: { organizationId: string }) {
  const { organization } = useLazyLoadQuery<OrganizationQuery>(
    graphql`
      query OrganizationQuery($organizationId: String!) {
        organization(organizationId: $organizationId) {
          restId
          title
          ...Organization_spaces
        }
      }
    `,
    { organizationId },
  );
  if (!organization) return <p className="error">No such organization.</p>;
  return (
    <section>
      <nav className="crumbs">
        <a href={href.organizations()}>Organizations</a>
      </nav>
      <h1>{organization.title}</h1>
      <div className="columns">
        <SpaceList organization={organization} />
        <AskBox organizationId={organization.restId} />
      </div>
    </section>
  );
}

const PAGE_SIZE = 2;

function SpaceList(props: { organization: Organization_spaces$key }) {
  const { data, loadNext, hasNext, isLoadingNext } = usePaginationFragment(
    graphql`
      fragment Organization_spaces on Organization
      @argumentDefinitions(count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" })
      @refetchable(queryName: "OrganizationSpacesPaginationQuery") {
        spaces(first: $count, after: $cursor) @connection(key: "Organization_spaces") {
          edges {
            node {
              id
              restId
              emoji
              title
              visibility
              changeRequestsOpenCount
            }
          }
        }
      }
    `,
    props.organization,
  );
  return (
    <div>
      <h2>Spaces</h2>
      <ul className="cards" data-testid="spaces">
        {data.spaces?.edges.map(({ node }) => (
          <li className="card" key={node.id}>
            <a href={href.space(node.restId)}>
              {node.emoji} {node.title}
            </a>
            <span className="muted">
              {node.visibility.toLowerCase().replace('_', ' ')} · {node.changeRequestsOpenCount} open
            </span>
          </li>
        ))}
      </ul>
      <LoadMore hasNext={hasNext} isLoadingNext={isLoadingNext} loadNext={loadNext} pageSize={PAGE_SIZE} />
    </div>
  );
}
