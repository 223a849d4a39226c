const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Any version, either case: ids in paths and CLI arguments are checked before a lookup. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
