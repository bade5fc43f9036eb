import { useMemo, useState, type FormEvent } from 'react';
import { graphql, useSubscription } from 'react-relay';
import type { AskBoxSubscription, AskBoxSubscription$data } from '../__generated__/AskBoxSubscription.graphql';
import { href } from '../route';

/** Ask the organization's content a question; the answer streams in (`askStream` over graphql-sse). */
export function AskBox({ organizationId }: { organizationId: string }) {
  const [draft, setDraft] = useState('');
  const [question, setQuestion] = useState<{ text: string; at: number } | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim()) setQuestion({ text: draft.trim(), at: Date.now() });
  };
  return (
    <aside className="ask">
      <h2>Ask</h2>
      <form onSubmit={submit}>
        <input
          aria-label="Question"
          placeholder="Ask a question about these docs…"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit">Ask</button>
      </form>
      {question && <Answer key={question.at} organizationId={organizationId} query={question.text} />}
    </aside>
  );
}

type Streamed = AskBoxSubscription$data['askStream'];

function Answer({ organizationId, query }: { organizationId: string; query: string }) {
  const [answer, setAnswer] = useState<Streamed | null>(null);
  const [state, setState] = useState<'streaming' | 'done' | 'failed'>('streaming');
  const config = useMemo(
    () => ({
      subscription: graphql`
        subscription AskBoxSubscription($organizationId: String!, $query: String!) {
          askStream(organizationId: $organizationId, query: $query, format: MARKDOWN) {
            answer {
              markdown
            }
            followupQuestions
            sources {
              page
              space {
                restId
                title
              }
            }
          }
        }
      `,
      variables: { organizationId, query },
      onNext: (response: AskBoxSubscription$data | null | undefined) => response && setAnswer(response.askStream),
      onCompleted: () => setState('done'),
      onError: () => setState('failed'),
    }),
    [organizationId, query],
  );
  useSubscription<AskBoxSubscription>(config);
  return (
    <div className="answer" data-testid="answer" data-state={state}>
      <p className="body">{answer?.answer?.markdown ?? (state === 'streaming' ? 'Thinking…' : 'No answer.')}</p>
      {state === 'failed' && <p className="error">The answer stream failed.</p>}
      {answer && answer.sources.length > 0 && (
        <>
          <h3>Sources</h3>
          <ul className="sources" data-testid="sources">
            {answer.sources.map((source) => (
              <li key={source.page}>
                {source.space ? <a href={href.space(source.space.restId)}>{source.space.title}</a> : 'A page'}{' '}
                <span className="muted">page {source.page}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {answer && answer.followupQuestions.length > 0 && <p className="muted">Related: {answer.followupQuestions.join(' · ')}</p>}
    </div>
  );
}
