import { useState, type FormEvent } from 'react';
import { graphql, useFragment, useLazyLoadQuery, useMutation, usePaginationFragment } from 'react-relay';
import type { ChangeRequestAddCommentMutation } from '../__generated__/ChangeRequestAddCommentMutation.graphql';
import type { ChangeRequestQuery } from '../__generated__/ChangeRequestQuery.graphql';
import type { ChangeRequest_comment$key } from '../__generated__/ChangeRequest_comment.graphql';
import type { ChangeRequest_comments$key } from '../__generated__/ChangeRequest_comments.graphql';
import { LoadMore } from '../LoadMore';
import { href } from '../route';

/** A change request: its comments (newest first, as REST sorts them) with their replies, and a form to add one. */
export function ChangeRequestScreen({ spaceId, changeRequestId }: { spaceId: string; changeRequestId: string }) {
  const { changeRequest } = useLazyLoadQuery<ChangeRequestQuery>(
    graphql`
      query ChangeRequestQuery($spaceId: String!, $changeRequestId: String!) {
        changeRequest(spaceId: $spaceId, changeRequestId: $changeRequestId) {
          number
          subject
          status
          createdBy {
            displayName
          }
          space {
            restId
            title
            organization {
              restId
              title
            }
          }
          ...ChangeRequest_comments
        }
      }
    `,
    { spaceId, changeRequestId },
  );
  if (!changeRequest) return <p className="error">No such change request.</p>;
  const { space } = changeRequest;
  return (
    <section>
      <nav className="crumbs">
        <a href={href.organizations()}>Organizations</a>
        {space?.organization && <a href={href.organization(space.organization.restId)}>{space.organization.title}</a>}
        {space && <a href={href.space(space.restId)}>{space.title}</a>}
      </nav>
      <h1>
        #{changeRequest.number} {changeRequest.subject}
      </h1>
      <p className="muted">
        {changeRequest.status.toLowerCase()} · by {changeRequest.createdBy.displayName}
      </p>
      <Comments changeRequest={changeRequest} spaceId={spaceId} changeRequestId={changeRequestId} />
    </section>
  );
}

function Comments(props: { changeRequest: ChangeRequest_comments$key; spaceId: string; changeRequestId: string }) {
  const { data, loadNext, hasNext, isLoadingNext } = usePaginationFragment(
    graphql`
      fragment ChangeRequest_comments on ChangeRequest
      @argumentDefinitions(count: { type: "Int", defaultValue: 10 }, cursor: { type: "String" })
      @refetchable(queryName: "ChangeRequestCommentsPaginationQuery") {
        comments(first: $count, after: $cursor) @connection(key: "ChangeRequest_comments") {
          __id
          edges {
            node {
              id
              ...ChangeRequest_comment
            }
          }
        }
      }
    `,
    props.changeRequest,
  );
  return (
    <div>
      <h2>Comments</h2>
      {data.comments && <AddComment spaceId={props.spaceId} changeRequestId={props.changeRequestId} connection={data.comments.__id} />}
      <ol className="comments" data-testid="comments">
        {data.comments?.edges.map(({ node }) => (
          <Comment key={node.id} comment={node} />
        ))}
      </ol>
      <LoadMore hasNext={hasNext} isLoadingNext={isLoadingNext} loadNext={loadNext} pageSize={10} />
    </div>
  );
}

function Comment(props: { comment: ChangeRequest_comment$key }) {
  const comment = useFragment(
    graphql`
      fragment ChangeRequest_comment on Comment {
        postedAt
        status
        postedBy {
          displayName
        }
        body {
          markdown
        }
        reactions {
          emoji
          count
        }
        replies(first: 20) {
          edges {
            node {
              id
              postedBy {
                displayName
              }
              body {
                markdown
              }
            }
          }
        }
      }
    `,
    props.comment,
  );
  return (
    <li className="comment" data-status={comment.status.toLowerCase()}>
      <p className="meta">
        <strong>{comment.postedBy.displayName}</strong>{' '}
        <time dateTime={comment.postedAt}>{new Date(comment.postedAt).toLocaleString()}</time>
        {comment.status === 'RESOLVED' && <span className="badge">resolved</span>}
        {comment.reactions.map((r) => (
          <span className="badge" key={r.emoji}>
            {r.emoji} {r.count}
          </span>
        ))}
      </p>
      <p className="body">{comment.body?.markdown}</p>
      {comment.replies && comment.replies.edges.length > 0 && (
        <ol className="replies">
          {comment.replies.edges.map(({ node }) => (
            <li className="reply" key={node.id}>
              <p className="meta">
                <strong>{node.postedBy.displayName}</strong>
              </p>
              <p className="body">{node.body?.markdown}</p>
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}

/** Adds a comment; the mutation's payload puts it at the top of the list at once (no refetch). */
function AddComment({ spaceId, changeRequestId, connection }: { spaceId: string; changeRequestId: string; connection: string }) {
  const [markdown, setMarkdown] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [commit, inFlight] = useMutation<ChangeRequestAddCommentMutation>(graphql`
    mutation ChangeRequestAddCommentMutation($input: CreateCommentInput!, $connections: [ID!]!) {
      createComment(input: $input) {
        comment @prependNode(connections: $connections, edgeTypeName: "CommentEdge") {
          id
          ...ChangeRequest_comment
        }
      }
    }
  `);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    commit({
      variables: { input: { spaceId, changeRequestId, body: { markdown } }, connections: [connection] },
      onCompleted: (_, errors) => (errors?.length ? setError(errors[0].message) : setMarkdown('')),
      onError: (e) => setError(e.message),
    });
  };
  return (
    <form className="add-comment" onSubmit={submit}>
      <textarea
        aria-label="New comment"
        placeholder="Add a comment…"
        value={markdown}
        onChange={(e) => setMarkdown(e.target.value)}
        rows={3}
      />
      <button type="submit" disabled={inFlight || !markdown.trim()}>
        {inFlight ? 'Posting…' : 'Add a comment'}
      </button>
      {error && <p className="error">{error}</p>}
    </form>
  );
}
