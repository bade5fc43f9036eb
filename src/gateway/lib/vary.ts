/** Adds `name` to a response's `Vary` unless it is listed already (or `*` is): one header, each name once. */
export function addVary(headers: Headers, name: string): void {
  const vary = headers.get('vary');
  const listed = vary?.split(',').some((item) => ['*', name.toLowerCase()].includes(item.trim().toLowerCase()));
  if (!vary) headers.set('vary', name);
  else if (!listed) headers.set('vary', `${vary}, ${name}`);
}
