/** The "Load more" button under a list paged with usePaginationFragment. */
export function LoadMore({
  hasNext,
  isLoadingNext,
  loadNext,
  pageSize,
}: {
  hasNext: boolean;
  isLoadingNext: boolean;
  loadNext: (count: number) => unknown;
  pageSize: number;
}) {
  if (!hasNext) return null;
  return (
    <button type="button" onClick={() => loadNext(pageSize)} disabled={isLoadingNext}>
      {isLoadingNext ? 'Loading…' : 'Load more'}
    </button>
  );
}
