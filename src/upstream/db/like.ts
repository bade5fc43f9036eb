/**
 * Substring matches with LIKE: `${containsLike(column)}` with the parameter `containing(text)`
 * matches values that contain `text` (LIKE's `%` and `_` in it match only themselves).
 */
export const containsLike = (column: string) => `${column} LIKE ? ESCAPE '\\'`;

export const containing = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;
