/** Replies to comments: the `CommentReply` node; its list, lookup and writes are in src/schema/resources.ts. */
import { edge, resourceNode } from '../lib/resource.js';
import { postFields, type RestPost } from './Comment.js';

export type CommentReplyShape = RestPost & { spaceId: string; changeRequestId: string; commentId: string };

declare module '../lib/resource.js' {
  interface ResourceShapes {
    CommentReply: CommentReplyShape;
  }
}

export const CommentReply = resourceNode('CommentReply');

CommentReply.implement({
  description: 'A reply to a comment.',
  fields: (t) => ({
    comment: edge(t, 'Comment', (r) => [r.spaceId, r.changeRequestId, r.commentId], { description: 'The comment it replies to.' }),
  }),
});
postFields(CommentReply, 'CommentReply');
