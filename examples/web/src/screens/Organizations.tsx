import { graphql, useFragment, useLazyLoadQuery } from 'react-relay';
import type { OrganizationsQuery } from '../__generated__/OrganizationsQuery.graphql';
import type { Organizations_organization$key } from '../__generated__/Organizations_organization.graphql';
import { href } from '../route';

/** The organizations the caller belongs to. */
export function OrganizationsScreen() {
  const data = useLazyLoadQuery<OrganizationsQuery>(
    graphql`
      query OrganizationsQuery {
        organizations(first: 20) {
          edges {
            node {
              id
              ...Organizations_organization
            }
          }
        }
      }
    `,
    {},
  );
  const edges = data.organizations?.edges ?? [];
  return (
    <section>
      <h1>Organizations</h1>
      <ul className="cards" data-testid="organizations">
        {edges.map(({ node }) => (
          <OrganizationItem key={node.id} organization={node} />
        ))}
      </ul>
    </section>
  );
}

function OrganizationItem(props: { organization: Organizations_organization$key }) {
  const organization = useFragment(
    graphql`
      fragment Organizations_organization on Organization {
        restId
        title
        plan
      }
    `,
    props.organization,
  );
  return (
    <li className="card">
      <a href={href.organization(organization.restId)}>{organization.title}</a>
      <span className="muted">{organization.plan}</span>
    </li>
  );
}
