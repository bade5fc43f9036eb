import { useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { HeaderQuery } from './__generated__/HeaderQuery.graphql';
import { href } from './route';

/** Who is signed in (the graph's `viewer`), and a form to call the graph with another token. */
export function Header({
  token,
  onToken,
  retry,
}: {
  token: string | null;
  onToken: (token: string | null) => void;
  /** Changes with the screen: a viewer query that failed is asked again (Relay keeps its error until then). */
  retry: string;
}) {
  const [draft, setDraft] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim()) onToken(draft.trim());
    setDraft('');
  };
  return (
    <header className="header">
      <a className="brand" href={href.organizations()}>
        docs-graph
      </a>
      {token ? <Viewer retry={retry} /> : <span className="viewer">Not signed in</span>}
      <form className="token" onSubmit={submit}>
        <input aria-label="API token" placeholder="Use another token…" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit">Use</button>
        <button type="button" onClick={() => onToken(null)}>
          Demo
        </button>
      </form>
    </header>
  );
}

function Viewer({ retry }: { retry: string }) {
  const { viewer } = useLazyLoadQuery<HeaderQuery>(
    graphql`
      query HeaderQuery {
        viewer {
          displayName
          email
        }
      }
    `,
    {},
    // A new key re-reads the store, and asks the gateway only for what it lacks.
    { fetchKey: retry },
  );
  return (
    <span className="viewer" data-testid="viewer">
      Signed in as <strong>{viewer.displayName}</strong> {viewer.email && <span className="muted">{viewer.email}</span>}
    </span>
  );
}
