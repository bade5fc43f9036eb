import { useState, useTransition } from 'react';
import { graphql, useLazyLoadQuery, usePaginationFragment } from 'react-relay';
import type { ChangeRequestStatus, Space_changeRequests$key } from '../__generated__/Space_changeRequests.graphql';
import type { SpaceQuery } from '../__generated__/SpaceQuery.graphql';
import { LoadMore } from '../LoadMore';
import { href } from '../route';

/** A space: its change requests of one status (Open by default, as in REST). */
export function SpaceScreen({ spaceId }: { spaceId: string }) {
  const { space } = useLazyLoadQuery<SpaceQuery>(
    graphql`
      query SpaceQuery($spaceId: String!) {
        space(spaceId: $spaceId) {
          restId
          emoji
          title
          organization {
            restId
            title
          }
          ...Space_changeRequests
        }
      }
    `,
    { spaceId },
  );
  if (!space) return <p className="error">No such space.</p>;
  return (
    <section>
      <nav className="crumbs">
        <a href={href.organizations()}>Organizations</a>
        {space.organization && <a href={href.organization(space.organization.restId)}>{space.organization.title}</a>}
      </nav>
      <h1>
        {space.emoji} {space.title}
      </h1>
      <ChangeRequests space={space} />
    </section>
  );
}

const STATUSES: ChangeRequestStatus[] = ['OPEN', 'DRAFT', 'MERGED', 'ARCHIVED'];

function ChangeRequests(props: { space: Space_changeRequests$key }) {
  const [status, setStatus] = useState<ChangeRequestStatus>('OPEN');
  const [pending, startTransition] = useTransition();
  const { data, loadNext, hasNext, isLoadingNext, refetch } = usePaginationFragment(
    graphql`
      fragment Space_changeRequests on Space
      @argumentDefinitions(
        count: { type: "Int", defaultValue: 10 }
        cursor: { type: "String" }
        status: { type: "ChangeRequestStatus", defaultValue: OPEN }
      )
      @refetchable(queryName: "SpaceChangeRequestsPaginationQuery") {
        restId
        changeRequests(first: $count, after: $cursor, status: $status) @connection(key: "Space_changeRequests") {
          edges {
            node {
              id
              restId
              number
              subject
              status
              commentsCount
              createdBy {
                displayName
              }
            }
          }
        }
      }
    `,
    props.space,
  );
  const edges = data.changeRequests?.edges ?? [];
  return (
    <div>
      <h2>Change requests</h2>
      <div className="tabs" role="tablist">
        {STATUSES.map((tab) => (
          <button
            key={tab}
            type="button"
            role="tab"
            aria-selected={tab === status}
            onClick={() => {
              setStatus(tab);
              startTransition(() => {
                refetch({ status: tab }, { fetchPolicy: 'store-or-network' });
              });
            }}
          >
            {tab.toLowerCase()}
          </button>
        ))}
      </div>
      <ul className={`cards${pending ? ' pending' : ''}`} data-testid="change-requests">
        {edges.map(({ node }) => (
          <li className="card" key={node.id}>
            <a href={href.changeRequest(data.restId, node.restId)}>
              #{node.number} {node.subject}
            </a>
            <span className="muted">
              {node.status.toLowerCase()} · by {node.createdBy.displayName} · {node.commentsCount} open comments
            </span>
          </li>
        ))}
        {edges.length === 0 && <li className="muted">No {status.toLowerCase()} change requests.</li>}
      </ul>
      <LoadMore hasNext={hasNext} isLoadingNext={isLoadingNext} loadNext={loadNext} pageSize={10} />
    </div>
  );
}
