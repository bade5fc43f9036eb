/** The query GraphiQL opens with when the embedded upstream runs: the five-level walk. */
export function exampleQuery(organizationId: string): string {
  return `# docs-graph: organization → spaces → change requests → comments → replies, in one round trip.
# The Authorization header (bottom panel) holds the demo admin's token. Press ▶ to run.
query Example {
  viewer { displayName email }
  organization(organizationId: "${organizationId}") {
    title
    spaces(first: 5) {
      nodes {
        title
        visibility
        changeRequestsOpenCount
        changeRequests(first: 3) {
          nodes {
            number
            subject
            status
            createdBy { displayName }
            comments(first: 3, format: MARKDOWN) {
              nodes {
                body { markdown }
                postedBy { displayName }
                replies(first: 3, format: MARKDOWN) {
                  nodes { body { markdown } postedBy { displayName } }
                }
              }
            }
          }
        }
      }
    }
  }
}
`;
}
