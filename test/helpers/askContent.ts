/** Pages for the gateway's AI-ask tests: two private spaces of the world's main organization. */
import { insertSpace, type SpaceRow } from '../../src/upstream/domain/spaces.js';
import type { TestUpstream } from './upstream.js';

const INSTALLATION = `# Installation

Install the CLI with npm. It needs Node 20 or later.

## Running with Docker

Run the container with docker compose up. The docker image exposes the web interface. Mount a volume to keep the docker data. Docker logs go to stdout.

## Upgrading

Run npm update to upgrade the CLI. Read the changelog first.
`;

const NETWORKING = `# Networking

The docker container listens on port 3000. Change the port with the port flag.

## Proxy

The proxy forwards traffic from port 80 to the docker container.
`;

/** A question both spaces answer, over several sentences (so the stream sends several events). */
export const DOCKER_QUESTION = 'How do I run the docker container?';

export function addAskContent(t: TestUpstream): { guides: SpaceRow; networking: SpaceRow } {
  const add = (title: string, pageTitle: string, markdown: string) =>
    insertSpace(t.upstream.db, t.clock.now().toISOString(), {
      organizationId: t.world.orgId,
      title,
      pages: [{ title: pageTitle, markdown }],
    });
  return { guides: add('Guides', 'Installation', INSTALLATION), networking: add('Networking', 'Networking', NETWORKING) };
}
