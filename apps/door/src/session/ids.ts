import { ID_PREFIX, type IdKind } from '@murmur/protocol';
import { v7 } from 'uuid';

/** A fresh identifier: the kind's prefix, then a UUIDv7 as 32 lowercase hex digits, so ids sort by creation time. */
export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + v7().replace(/-/g, '');
}
