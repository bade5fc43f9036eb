import { useState } from 'react';

/** The "Load more" button under a list paged with usePaginationFragment. */
export function LoadMore({
  hasNext,
  isLoadingNext,
  loadNext,
  pageSize,
}: {
  hasNext: boolean;
  isLoadingNext: boolean;
  loadNext: (count: number, options: { onComplete: (error: Error | null) => void }) => unknown;
  pageSize: number;
}) {
  // Relay hands a failed page (the gateway down, an error answer) to onComplete only: without it,
  // a click on a failing "Load more" showed nothing, and the button came back as if nothing had
  // been asked.
  const [error, setError] = useState<string | null>(null);
  if (!hasNext) return null;
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setError(null);
          loadNext(pageSize, { onComplete: (failed) => setError(failed?.message ?? null) });
        }}
        disabled={isLoadingNext}
      >
        {isLoadingNext ? 'Loading…' : 'Load more'}
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
