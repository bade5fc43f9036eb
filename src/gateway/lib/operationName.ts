/**
 * Operation names are the client's text, kept in metric labels, span names and log lines: longer
 * than MAX_OPERATION_NAME_LENGTH they are refused (useMaxOperationName.ts), and wherever one is
 * kept it is cut to that length first (a refused operation is still counted and traced).
 */
export const MAX_OPERATION_NAME_LENGTH = 256;

/** `name`, cut to MAX_OPERATION_NAME_LENGTH characters (with `…` when cut). */
export function boundedName(name: string): string;
export function boundedName(name: string | undefined): string | undefined;
export function boundedName(name: string | undefined): string | undefined {
  return name === undefined || name.length <= MAX_OPERATION_NAME_LENGTH ? name : `${name.slice(0, MAX_OPERATION_NAME_LENGTH)}…`;
}
